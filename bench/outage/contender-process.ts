// One contender's own process (forked by bench/outage/scenario.ts): loads one client, connects it
// through the fault proxy, runs the producers and the unrelated task when told, notes the blip
// and the heal, and on `stop` reports what it measured. Nothing else runs here, so what one client
// loads or leaves pending affects only its own figures.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import { keySlot } from '../../src/cluster/key-slot.js';
import { garbageCollector } from '../garbage-collector.js';
import { CallLog, Group, type Timeline } from './call-log.js';
import type { OutageDriver } from './drivers/driver.js';
import {
  type ContenderArguments,
  type ContenderTarget,
  epochMs,
  type FromContender,
  type ToContender,
} from './messages.js';
import { Producers } from './producers.js';
import type { ContenderSpec } from './settings.js';
import { summarizeCalls } from './summary.js';
import { UnrelatedTask } from './unrelated-task.js';

/** How often the runner hears the counts, for its progress line. */
const PROGRESS_EVERY_MS = 250;
/** How often the heap is sampled for its peak. */
const HEAP_SAMPLE_EVERY_MS = 100;
/**
 * After the producers stop, how long calls in flight get to settle before what is left counts as
 * pending at the end: a call made a moment before the stop is not a stuck one.
 */
const SETTLE_GRACE_MS = 1_000;
/** The chart starts this long before the blip. */
const CHART_LEAD_MS = 3_000;

const now = () => performance.now();

function send(message: FromContender): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())),
  );
}

async function connect(contender: ContenderSpec, target: ContenderTarget): Promise<OutageDriver> {
  switch (contender.driver) {
    case 'respire':
      return (await import('./drivers/respire.js')).connectRespire(target, contender.circuitBreaker);
    case 'ioredis':
      return (await import('./drivers/ioredis.js')).connectIoredis(target);
    case 'node-redis':
      return (await import('./drivers/node-redis.js')).connectNodeRedis(target);
  }
}

/** In a cluster's run, which keys' calls go to the proxied primary (by their slot), as call groups. */
function keyGroups(target: ContenderTarget, base: string, keys: number): Uint8Array | undefined {
  if (target.kind !== 'cluster') return undefined;
  return Uint8Array.from({ length: keys }, (_, key) => {
    const slot = keySlot(`${base}:${key}`);
    const proxied = target.proxiedSlots.some(([from, to]) => slot >= from && slot <= to);
    return proxied ? Group.Proxied : Group.Direct;
  });
}

/** Untimed: one PUBLISH and one XADD must give what those commands give. */
async function check(driver: OutageDriver, channel: string, stream: string): Promise<void> {
  const receivers = await driver.publish(channel, 'check');
  const id = await driver.xadd(stream, 'check');
  if (typeof receivers !== 'number' || typeof id !== 'string' || !/^\d+-\d+$/.test(id)) {
    throw new Error(`PUBLISH gave ${String(receivers)} and XADD gave ${String(id)}`);
  }
}

class ContenderRun {
  private readonly log: CallLog;
  private readonly producers: Producers;
  private readonly task: UnrelatedTask;
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });
  /** A full collection before the heap baseline (the runner passes --expose-gc). */
  private readonly collectGarbage = garbageCollector();
  private readonly timeline: Timeline = {
    startedAt: 0,
    blipAt: Number.NaN,
    healAt: Number.NaN,
    stoppedAt: Number.NaN,
    settledAt: Number.NaN,
    circuitOpenedAt: undefined,
  };
  private heapBase = 0;
  private heapPeak = 0;
  private timers: NodeJS.Timeout[] = [];
  private readonly hasCircuit: boolean;

  constructor(
    private readonly args: ContenderArguments,
    driver: OutageDriver,
    names: { channel: string; stream: string },
  ) {
    const { settings } = args;
    const seconds = (settings.warmupMs + settings.blipMs + settings.afterMs) / 1000 + 5;
    this.log = new CallLog(Math.ceil(settings.callsPerSecond * seconds * 1.25) + settings.producers);
    const groups = keyGroups(args.target, names.channel, settings.keys);
    this.producers = new Producers(driver, this.log, { ...settings, ...names, groups }, now);
    this.task = new UnrelatedTask(settings.taskPeriodMs, now);
    this.hasCircuit = driver.onCircuitOpen !== undefined;
    driver.onCircuitOpen?.(() => {
      const at = now();
      if (this.timeline.circuitOpenedAt === undefined && at >= this.timeline.blipAt) {
        this.timeline.circuitOpenedAt = at;
      }
    });
  }

  async answer(message: ToContender): Promise<void> {
    switch (message.type) {
      case 'start':
        this.timeline.startedAt = now();
        this.producers.start();
        this.task.start();
        this.loopDelay.enable();
        this.timers.push(
          setInterval(() => void send({ type: 'progress', ...this.log.counts }), PROGRESS_EVERY_MS),
        );
        await send({ type: 'started', atMs: epochMs() });
        return;
      case 'blip':
        this.timeline.blipAt = message.atMs - performance.timeOrigin;
        this.collectGarbage();
        this.heapBase = this.heapPeak = v8.getHeapStatistics().used_heap_size;
        this.loopDelay.reset();
        this.timers.push(setInterval(() => this.sampleHeap(), HEAP_SAMPLE_EVERY_MS));
        return;
      case 'heal':
        this.timeline.healAt = message.atMs - performance.timeOrigin;
        return;
      case 'stop':
        await this.stop();
        return;
    }
  }

  private sampleHeap(): void {
    this.heapPeak = Math.max(this.heapPeak, v8.getHeapStatistics().used_heap_size);
  }

  private async stop(): Promise<void> {
    this.timeline.stoppedAt = now();
    this.producers.stop();
    this.task.stop();
    this.loopDelay.disable();
    this.sampleHeap();
    for (const timer of this.timers) clearInterval(timer);
    await this.producers.settled(SETTLE_GRACE_MS);
    this.timeline.settledAt = now();
    const { settings, contender } = this.args;
    const { blipAt, stoppedAt } = this.timeline;
    const summary = summarizeCalls(
      contender.name,
      this.log,
      this.timeline,
      {
        eventLoopDelayP99Ms: this.loopDelay.percentile(99) / 1e6,
        heapGrowthMb: (this.heapPeak - this.heapBase) / 2 ** 20,
        taskPacePercent: this.task.pacePercent(blipAt, stoppedAt),
        errors: this.producers.errors,
      },
      {
        hasCircuit: this.hasCircuit,
        leadMs: CHART_LEAD_MS,
        bucketMs: settings.bucketMs,
        cluster: this.args.target.kind === 'cluster',
      },
    );
    await send({ type: 'summary', summary });
  }
}

async function main(): Promise<void> {
  if (process.send === undefined) throw new Error('runs only as a child of bench/outage/scenario.js');
  const args = JSON.parse(process.argv[2] ?? '') as ContenderArguments;
  const driver = await connect(args.contender, args.target);
  const tag = args.contender.name.replace(/[^a-z0-9]+/gi, '-');
  const names = { channel: `outage:${tag}`, stream: `outage:${tag}` };
  await check(driver, names.channel, names.stream);
  const run = new ContenderRun(args, driver, names);
  let queue = Promise.resolve();
  process.on('message', (message: ToContender) => {
    queue = queue
      .then(() => run.answer(message))
      .then(() => {
        // Calls may still be pending (that is the point): leave without waiting for them.
        if (message.type === 'stop') process.exit(0);
      })
      .catch(fail);
  });
  await send({ type: 'ready' });
}

function fail(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.exitCode = 1;
  if (process.send === undefined || !process.connected) {
    process.stderr.write(`${text}\n`);
    process.exit(1);
  }
  process.send({ type: 'failed', error: text } satisfies FromContender, () => process.exit(1));
}

main().catch(fail);
