// Runs an IsolatedSuite: each contender in a worker process of its own (bench/worker.ts), which
// serves it for every case of the suite; all contenders of a case go through the same warm-up and
// interleaved rounds as in-process contenders (measure.ts), and Respire's processes are checked
// for anything a peer could have left behind.
import { type ChildProcess, fork } from 'node:child_process';
import { isolationFault } from './isolation-check.js';
import { measureOptions, measureRounds, type RoundRunner } from './measure.js';
import { isRespire } from './report.js';
import type { BenchContext, BenchResult, CasePlan, IsolatedSuite, Round } from './suite.js';
import {
  type FromWorker,
  type IsolationReport,
  type ToWorker,
  type WorkerArguments,
  workerArgv,
} from './worker-protocol.js';

/** How the runner starts workers: the compiled bench/worker.js and the node flags to give it. */
export interface WorkerLauncher {
  script: string;
  execArgv: readonly string[];
}

/** Longest a worker may take to start, to prepare or check a case, or to finish. */
const SETUP_DEADLINE_MS = 120_000;
/** Slack on top of a round's own length before a worker counts as hung. */
const ROUND_SLACK_MS = 60_000;
/** How long a finished worker may take to exit by itself (writing a `--cpu-prof` profile, say). */
const EXIT_GRACE_MS = 10_000;

export async function runIsolatedSuite(
  suite: IsolatedSuite,
  module: string,
  context: BenchContext,
  launcher: WorkerLauncher,
): Promise<BenchResult[]> {
  const plans = await suite.plan(context);
  const names = [...new Set(plans.flatMap((plan) => plan.contenders))];
  const workers = new Map(
    names.map((contender) => [
      contender,
      new ContenderProcess({ module, suite: suite.name, contender, quick: context.quick }, context, launcher),
    ]),
  );
  try {
    await Promise.all([...workers.values()].map((worker) => worker.start()));
    const results: BenchResult[] = [];
    for (const plan of plans) {
      context.log(`${suite.name}: ${plan.name}`);
      results.push(...(await measureCase(suite.name, plan, workers, context)));
    }
    for (const worker of workers.values()) {
      const report = await worker.finish();
      const fault = isRespire(worker.name) ? isolationFault(report) : undefined;
      if (fault !== undefined) throw new Error(`${worker.name}'s process ${fault}: its figures are void`);
      if (!report.stringPrototypeFast) {
        // Not an error for a peer: any application that loads it runs like that.
        context.log(`${suite.name}: ${worker.name} ran with a slow String.prototype (class extends String)`);
      }
    }
    return results;
  } finally {
    for (const worker of workers.values()) worker.kill();
  }
}

async function measureCase(
  suite: string,
  plan: CasePlan,
  workers: ReadonlyMap<string, ContenderProcess>,
  context: BenchContext,
): Promise<BenchResult[]> {
  const runners = plan.contenders.map((contender) => workers.get(contender)!);
  // Prepared together (untimed); timed one at a time.
  const ready = await Promise.all(runners.map((runner) => runner.prepare(plan.name)));
  const measured = await measureRounds(runners, plan.measure ?? measureOptions(context.quick));
  for (const runner of runners) await runner.check();
  const rows: BenchResult[] = [];
  const row = (client: string, value: number, unit: string) =>
    rows.push({ suite, case: plan.name, client, value: fourDigits(value), unit });
  // Rates first, then CPU costs, each in contender order, so a table reads down one unit at a time.
  measured.forEach((measurement, index) => {
    for (const { unit, perPass } of ready[index]!.units)
      row(measurement.name, measurement.passesPerSecond * perPass, unit);
  });
  measured.forEach((measurement, index) => {
    const cpu = ready[index]!.cpuPerPass;
    if (cpu === undefined || measurement.cpuMsPerPass === undefined) return;
    row(measurement.name, (measurement.cpuMsPerPass * 1000) / cpu.perPass, cpu.unit);
  });
  return rows;
}

/** Four significant digits: the machine's noise is far larger than that. */
function fourDigits(value: number): number {
  return Number(value.toPrecision(4));
}

type Answer<T extends FromWorker['type']> = Extract<FromWorker, { type: T }>;

interface Pending {
  type: FromWorker['type'];
  resolve(message: FromWorker): void;
  reject(error: Error): void;
}

/** One worker process, seen from the runner; one request at a time, answered in order. */
class ContenderProcess implements RoundRunner {
  readonly name: string;
  private child: ChildProcess | undefined;
  private pending: Pending | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private output = '';
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly args: WorkerArguments,
    private readonly context: BenchContext,
    private readonly launcher: WorkerLauncher,
  ) {
    this.name = args.contender;
  }

  async start(): Promise<void> {
    const child = fork(this.launcher.script, workerArgv(this.args), {
      execArgv: [...this.launcher.execArgv],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child = child;
    child.stdout!.setEncoding('utf8').on('data', (text: string) => this.keepOutput(text));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => this.keepOutput(text));
    child.on('message', (message: FromWorker) => this.onMessage(message));
    child.on('error', (error) => this.settle(undefined, error));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.on('exit', (code, signal) => {
      const tail = this.output.trim().split('\n').slice(-20).join('\n');
      this.settle(
        undefined,
        new Error(`exited (${signal ?? code}) before answering${tail ? `:\n${tail}` : ''}`),
      );
    });
    await this.request(undefined, 'loaded', SETUP_DEADLINE_MS);
  }

  async prepare(caseName: string): Promise<Answer<'ready'>> {
    return (await this.request({ type: 'prepare', caseName }, 'ready', SETUP_DEADLINE_MS)) as Answer<'ready'>;
  }

  async runFor(durationMs: number): Promise<Round> {
    const ran = await this.request({ type: 'run', durationMs }, 'ran', durationMs + ROUND_SLACK_MS);
    const { passes, elapsedMs, cpuMs } = ran as Answer<'ran'>;
    return { passes, elapsedMs, cpuMs };
  }

  /** Has the worker check the case's work (all passes) and release the case. */
  async check(): Promise<void> {
    await this.request({ type: 'check' }, 'checked', SETUP_DEADLINE_MS);
  }

  /** Collects what the worker's process loaded, then lets it exit by itself. */
  async finish(): Promise<IsolationReport> {
    const done = await this.request({ type: 'finish' }, 'done', SETUP_DEADLINE_MS);
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (grace = setTimeout(resolve, EXIT_GRACE_MS)))]);
    clearTimeout(grace);
    return (done as Answer<'done'>).isolation;
  }

  kill(): void {
    clearTimeout(this.deadline);
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  private request(
    message: ToWorker | undefined,
    answer: FromWorker['type'],
    deadlineMs: number,
  ): Promise<FromWorker> {
    return new Promise<FromWorker>((resolve, reject) => {
      this.pending = { type: answer, resolve, reject };
      this.deadline = setTimeout(() => {
        this.settle(undefined, new Error(`gave no '${answer}' within ${deadlineMs} ms`));
        this.kill();
      }, deadlineMs);
      if (message !== undefined) this.child!.send(message);
    });
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'log':
        this.context.log(message.line);
        return;
      case 'need-redis-url':
        this.answerWith(this.context.redisUrl(), (url) => ({ type: 'redis-url', url }), 'redis-url');
        return;
      case 'need-redis-cluster':
        this.answerWith(
          this.context.redisCluster(),
          (cluster) => ({ type: 'redis-cluster', cluster }),
          'redis-cluster',
        );
        return;
      case 'failed':
        this.settle(undefined, new Error(message.error));
        return;
      default:
        if (this.pending?.type === message.type) this.settle(message, undefined);
        else this.settle(undefined, new Error(`sent '${message.type}' unasked`));
    }
  }

  /** Sends the worker what it asked for once it is there, or the error that kept it away. */
  private answerWith<T>(
    asked: Promise<T>,
    answer: (value: T) => ToWorker,
    type: 'redis-url' | 'redis-cluster',
  ): void {
    asked.then(
      (value) => this.child?.send(answer(value)),
      (error: unknown) => this.child?.send({ type, error: String(error) } as ToWorker),
    );
  }

  private settle(message: FromWorker | undefined, error: Error | undefined): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    clearTimeout(this.deadline);
    if (error === undefined) pending.resolve(message!);
    else pending.reject(new Error(`${this.args.suite} / ${this.name}: ${error.message}`));
  }

  /** The last few kilobytes a worker printed, shown when it dies. */
  private keepOutput(text: string): void {
    this.output = (this.output + text).slice(-8192);
  }
}
