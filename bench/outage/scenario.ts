// The outage scenario runner (issue 6, "The scenario"): for each contender in turn, a fault proxy
// in front of Redis and a process of the contender's own (contender-process.ts) that connects
// through it and runs the workload; after the warm-up the proxy black-holes Redis for the blip,
// then heals, and after a while the contender stops and reports. The proxy lives here, in the
// runner's process, so forwarding bytes costs the contender nothing.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startFaultProxy } from '../../test/kit/fault-proxy.js';
import {
  type CallCounts,
  type ContenderArguments,
  type Endpoint,
  epochMs,
  type FromContender,
  type ToContender,
} from './messages.js';
import type { ProgressLine, ProgressState } from './progress.js';
import type { ContenderSpec, OutageSettings } from './settings.js';
import type { ContenderSummary } from './summary.js';

/** Longest a contender may take to connect and check, or to report once stopped. */
const SETUP_DEADLINE_MS = 60_000;

export interface OutageReport {
  settings: OutageSettings;
  summaries: ContenderSummary[];
}

export interface ScenarioIo {
  /** Compiled contender-process.js (the default sits beside this module). */
  script?: string;
  progress: ProgressLine;
  /** The progress line's name for the scenario; default `outage`. */
  name?: string;
}

/**
 * What the fault proxy black-holes: Redis itself, or one primary of a cluster whose other nodes
 * the contenders reach directly (they read the topology from `seeds`, and their address maps send
 * the primary's calls through the proxy).
 */
export type ScenarioTarget =
  | { kind: 'standalone'; host: string; port: number }
  | { kind: 'cluster'; seeds: Endpoint[]; primary: Endpoint; slots: (readonly [number, number])[] };

/** The compiled contender script beside this module; none when this module runs from source. */
export function contenderScript(): string | undefined {
  const url = new URL('./contender-process.js', import.meta.url);
  return import.meta.url.endsWith('.js') ? fileURLToPath(url) : undefined;
}

/** Runs every contender of `settings`, one after another, against `target`. */
export async function runOutageScenario(
  settings: OutageSettings,
  target: ScenarioTarget,
  io: ScenarioIo,
): Promise<OutageReport> {
  const script = io.script ?? contenderScript();
  if (script === undefined) {
    throw new Error(
      'the outage scenario forks compiled contender processes: run it compiled (npm run bench)',
    );
  }
  const summaries: ContenderSummary[] = [];
  try {
    for (const [index, contender] of settings.contenders.entries()) {
      const show = (state: Omit<ProgressState, 'scenario' | 'index' | 'total' | 'contender'>) =>
        io.progress.show({
          ...state,
          scenario: io.name,
          index: index + 1,
          total: settings.contenders.length,
          contender: contender.name,
        });
      summaries.push(await runContender(contender, settings, target, script, show));
    }
  } finally {
    io.progress.clear();
  }
  return { settings, summaries };
}

async function runContender(
  contender: ContenderSpec,
  settings: OutageSettings,
  target: ScenarioTarget,
  script: string,
  show: (state: Omit<ProgressState, 'scenario' | 'index' | 'total' | 'contender'>) => void,
): Promise<ContenderSummary> {
  const proxied = target.kind === 'standalone' ? target : target.primary;
  const proxy = await startFaultProxy({ target: { host: proxied.host, port: proxied.port } });
  const through = { host: proxy.host, port: proxy.port };
  const args: ContenderArguments = {
    contender,
    settings,
    target:
      target.kind === 'standalone'
        ? { kind: 'standalone', ...through }
        : {
            kind: 'cluster',
            seeds: target.seeds,
            proxied: { from: { host: proxied.host, port: proxied.port }, to: through },
            proxiedSlots: target.slots,
          },
  };
  let phase: ProgressState['phase'] = 'connecting';
  let phaseStart = epochMs();
  let phaseMs = 0;
  let counts: CallCounts | undefined;
  const redraw = () => show({ phase, phaseElapsedMs: epochMs() - phaseStart, phaseMs, counts });
  const enter = (next: ProgressState['phase'], at: number, length: number) => {
    phase = next;
    phaseStart = at;
    phaseMs = length;
    redraw();
  };
  const child = new ContenderProcess(script, args, (latest) => {
    counts = latest;
    redraw();
  });
  try {
    redraw();
    await child.next('ready', SETUP_DEADLINE_MS);
    const started = await child.request({ type: 'start' }, 'started', SETUP_DEADLINE_MS);
    enter('warm-up', started.atMs, settings.warmupMs);
    await child.until(started.atMs + settings.warmupMs);

    await proxy.setMode('blackhole');
    const blipAt = epochMs();
    child.send({ type: 'blip', atMs: blipAt });
    enter('blip', blipAt, settings.blipMs);
    await child.until(blipAt + settings.blipMs);

    await proxy.setMode('pass');
    const healAt = epochMs();
    child.send({ type: 'heal', atMs: healAt });
    enter('after the heal', healAt, settings.afterMs);
    await child.until(healAt + settings.afterMs);

    enter('stopping', epochMs(), 0);
    const { summary } = await child.request({ type: 'stop' }, 'summary', SETUP_DEADLINE_MS);
    return summary;
  } finally {
    child.kill();
    await proxy.stop();
  }
}

type Message<T extends FromContender['type']> = Extract<FromContender, { type: T }>;

/** One contender's process, seen from the runner. */
class ContenderProcess {
  private readonly child: ChildProcess;
  private output = '';
  private waiter: { type: FromContender['type']; resolve(message: FromContender): void } | undefined;
  /** Rejects when the process fails or exits before it has reported. */
  private readonly died: Promise<never>;
  private reported = false;

  constructor(
    script: string,
    args: ContenderArguments,
    private readonly onProgress: (counts: CallCounts) => void,
  ) {
    // --expose-gc: a full collection before the heap baseline at the start of the blip.
    this.child = fork(script, [JSON.stringify(args)], {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const keep = (text: string) => {
      this.output = (this.output + text).slice(-8192);
    };
    this.child.stdout!.setEncoding('utf8').on('data', keep);
    this.child.stderr!.setEncoding('utf8').on('data', keep);
    this.died = new Promise<never>((_, reject) => {
      this.child.on('message', (message: FromContender) => {
        if (message.type === 'failed') reject(this.error(message.error));
        else this.onMessage(message);
      });
      this.child.on('error', (error) => reject(this.error(error.message)));
      // 'close' comes after the IPC channel is drained, so a summary sent just before exiting counts.
      this.child.on('close', (code, signal) => {
        if (!this.reported) reject(this.error(`exited (${signal ?? code}) before it reported`));
      });
    });
    this.died.catch(() => {
      // Observed through next() and until(); never unhandled.
    });
  }

  send(message: ToContender): void {
    this.child.send(message);
  }

  /** Sends `message` and waits for the answer of type `type`. */
  request<T extends FromContender['type']>(
    message: ToContender,
    type: T,
    deadlineMs: number,
  ): Promise<Message<T>> {
    const answer = this.next(type, deadlineMs);
    this.send(message);
    return answer;
  }

  /** The next message of type `type`, within `deadlineMs`. */
  next<T extends FromContender['type']>(type: T, deadlineMs: number): Promise<Message<T>> {
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<Message<T>>((resolve, reject) => {
      this.waiter = { type, resolve: resolve as (message: FromContender) => void };
      timer = setTimeout(() => reject(this.error(`gave no '${type}' within ${deadlineMs} ms`)), deadlineMs);
    });
    return Promise.race([answer, this.died]).finally(() => clearTimeout(timer));
  }

  /** Resolves at epoch time `atMs`: the scenario's phases last a set time, whatever happens. */
  until(atMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const due = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, atMs - epochMs()));
    });
    return Promise.race([due, this.died]).finally(() => clearTimeout(timer));
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private onMessage(message: FromContender): void {
    if (message.type === 'progress') {
      const { type: _, ...counts } = message;
      this.onProgress(counts);
      return;
    }
    if (message.type === 'summary') this.reported = true;
    const waiter = this.waiter;
    if (waiter?.type !== message.type) return;
    this.waiter = undefined;
    waiter.resolve(message);
  }

  private error(reason: string): Error {
    const tail = this.output.trim().split('\n').slice(-20).join('\n');
    return new Error(`outage contender process ${reason}${tail ? `:\n${tail}` : ''}`);
  }
}
