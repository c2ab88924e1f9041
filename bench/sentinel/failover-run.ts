// One run of the `sentinel-failover` suite (issue 12, "Benchmark and demo"): a fresh Sentinel group
// (primary, 2 replicas, 3 sentinels, from test/kit), one client connected through the sentinels,
// a steady rate of SETs of fresh keys, then the fault: SENTINEL FAILOVER or a SIGKILL of the
// primary. What it measures, per run:
// - resume: from the fault to the end of the longest stretch after it with no write that the
//   server both acknowledged and kept (a write the demoted primary took, then lost, is no resume);
// - failed calls, and stuck calls (never settled, or settled later than STUCK_BOUND_MS);
// - writes the demoted primary took after the switch was known (every sentinel named the new
//   primary): its `cmdstat_set` calls and rejected calls while it still says `master`, then only its
//   rejected calls (once it replicates, replicated SETs count as calls too). After a crash it is dead:
//   none;
// - acknowledged writes lost: every key the client saw OK for, read back from the new primary.
import { type RedisSentinelGroup, startRedisSentinel } from '../../test/kit/redis-sentinel.js';
import type { ChartSeries } from '../outage/series.js';
import { percentile } from '../outage/series.js';

export type Fault = 'planned failover' | 'primary crash';

/** What the suite needs of a client: connected through the sentinels, with its defaults. */
export interface SentinelDriver {
  set(key: string, value: string): Promise<unknown>;
  close(): Promise<void>;
}

export type ConnectSentinelDriver = (
  sentinels: readonly { host: string; port: number }[],
  serviceName: string,
) => Promise<SentinelDriver>;

export interface RunTimings {
  warmupMs: number;
  /** How long writes go on after the switch was known. */
  afterMs: number;
  writesPerSecond: number;
  /**
   * The sentinels' periods (sentinel kit): `'redis'`, Redis's defaults, for the figures; `'fast'`
   * for the quick run that only checks the suite works.
   */
  sentinelPeriods: 'fast' | 'redis';
}

/** A call unsettled this long after it was made counts as stuck. */
export const STUCK_BOUND_MS = 10_000;
const TICK_MS = 10;
const BUCKET_MS = 250;

export interface FailoverFigures {
  resumeMs: number;
  /** From the fault until every sentinel named the new primary. */
  switchKnownMs: number;
  failed: number;
  stuck: number;
  sentToDemoted: number;
  lostAcknowledged: number;
  acknowledged: number;
  made: number;
  series: ChartSeries;
}

export interface Call {
  key: string;
  startedAt: number;
  settledAt?: number;
  ok?: boolean;
}

export async function runFailover(
  connect: ConnectSentinelDriver,
  fault: Fault,
  timings: RunTimings,
  tag: string,
): Promise<FailoverFigures> {
  // 1 s, as the figures in the README were measured with (the kit's default for tests is 2 s).
  const group = await startRedisSentinel({ downAfterMs: 1_000, periods: timings.sentinelPeriods });
  try {
    const driver = await connect(group.sentinels, group.serviceName);
    try {
      return await measure(group, driver, fault, timings, tag);
    } finally {
      await driver.close().catch(() => undefined);
    }
  } finally {
    await group.stop();
  }
}

async function measure(
  group: RedisSentinelGroup,
  driver: SentinelDriver,
  fault: Fault,
  timings: RunTimings,
  tag: string,
): Promise<FailoverFigures> {
  const calls: Call[] = [];
  const startedAt = performance.now();
  // Catches up on the calls due so far at each tick: a late timer on a loaded machine does not
  // lower the offered rate.
  const writer = setInterval(() => {
    const due = Math.floor(((performance.now() - startedAt) * timings.writesPerSecond) / 1000);
    while (calls.length < due) {
      const call: Call = { key: `sf:${tag}:${calls.length}`, startedAt: performance.now() };
      calls.push(call);
      driver.set(call.key, 'v').then(
        () => settle(call, true),
        () => settle(call, false),
      );
    }
  }, TICK_MS);
  try {
    await delay(timings.warmupMs);
    const old = group.primary;
    const faultAt = performance.now();
    const next =
      fault === 'planned failover'
        ? await group.failover({ untilSettled: false })
        : await group.killPrimary({ untilSettled: false });
    const knownAt = performance.now();
    const demoted = fault === 'planned failover' ? await demotedWatch(group, old.port) : undefined;
    await delay(timings.afterMs);
    clearInterval(writer);
    const sentToDemoted = (await demoted?.stop()) ?? 0;
    await settledOrBound(calls);
    const stuckAt = performance.now();
    const acknowledged = calls.filter((call) => call.ok === true);
    const kept = await keptKeys(group, next.port, acknowledged);
    return {
      resumeMs: resumeMs(acknowledged, kept, faultAt),
      switchKnownMs: knownAt - faultAt,
      failed: calls.filter((call) => call.ok === false).length,
      stuck: calls.filter(
        (call) =>
          (call.settledAt ?? stuckAt) - call.startedAt > STUCK_BOUND_MS || call.settledAt === undefined,
      ).length,
      sentToDemoted,
      lostAcknowledged: acknowledged.length - kept.size,
      acknowledged: acknowledged.length,
      made: calls.length,
      series: series(calls, kept, faultAt, stuckAt),
    };
  } finally {
    clearInterval(writer);
  }
}

function settle(call: Call, ok: boolean): void {
  call.settledAt = performance.now();
  call.ok = ok;
}

/** Waits until every call settled, or until the last one made is STUCK_BOUND_MS old. */
async function settledOrBound(calls: readonly Call[]): Promise<void> {
  const last = calls.at(-1)?.startedAt ?? performance.now();
  while (calls.some((call) => call.settledAt === undefined) && performance.now() - last < STUCK_BOUND_MS) {
    await delay(100);
  }
}

/**
 * Counts the SETs the demoted primary runs or refuses from now on, polling its INFO: calls and
 * rejected calls while it still says `master` (nothing replicates to it then), only rejected calls
 * once it replicates (the new primary's stream counts as calls there). A poll every 50 ms: the
 * client writes that land between the last `master` poll and the switch to replica are not counted.
 */
async function demotedWatch(group: RedisSentinelGroup, port: number): Promise<{ stop(): Promise<number> }> {
  const read = async () => {
    const info = String(await group.command({ port }, ['INFO', 'all']));
    const set = /cmdstat_set:calls=(\d+),.*?rejected_calls=(\d+)/.exec(info);
    return {
      master: /role:master/.test(info),
      calls: Number(set?.[1] ?? 0),
      rejected: Number(set?.[2] ?? 0),
    };
  };
  const start = await read();
  let counted = 0;
  let last = start;
  let replicating = false;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const now = await read();
      if (!replicating && now.master) counted = now.calls - start.calls + (now.rejected - start.rejected);
      else {
        replicating = true;
        counted += now.rejected - last.rejected;
      }
      last = now;
      await delay(50);
    }
  })();
  return {
    async stop() {
      polling = false;
      await poll;
      return counted;
    },
  };
}

/**
 * The acknowledged keys the new primary has, by MGET of 500 at a time over the kit's connection
 * (every key was SET to 'v', so a missing one is the only nil): one connection per 500 keys, where
 * an EXISTS per key opened one per key and took a second or two per run after the measurement.
 */
async function keptKeys(
  group: RedisSentinelGroup,
  port: number,
  acknowledged: readonly Call[],
): Promise<Set<string>> {
  const kept = new Set<string>();
  for (let i = 0; i < acknowledged.length; i += 500) {
    const keys = acknowledged.slice(i, i + 500).map((call) => call.key);
    const values = (await group.command({ port }, ['MGET', ...keys])) as unknown[];
    keys.forEach((key, index) => {
      if (values[index] !== null) kept.add(key);
    });
  }
  return kept;
}

/**
 * From the fault to the first kept acknowledgement after the longest stretch after the fault with
 * none (the last kept one before the fault starts the first stretch).
 */
export function resumeMs(acknowledged: readonly Call[], kept: ReadonlySet<string>, faultAt: number): number {
  const times = acknowledged
    .filter((call) => kept.has(call.key))
    .map((call) => call.settledAt!)
    .sort((a, b) => a - b);
  let previous = faultAt;
  for (const time of times) if (time <= faultAt) previous = time;
  let longest = { gap: -1, end: faultAt };
  for (const time of times) {
    if (time <= faultAt) continue;
    if (time - previous > longest.gap) longest = { gap: time - previous, end: time };
    previous = time;
  }
  return Math.max(0, longest.end - faultAt);
}

/**
 * Acknowledged writes the server kept, per second, and the p99 wait, per bucket, from 2 s before the
 * fault: a write the demoted primary acknowledged and then lost is no completed write.
 */
function series(
  calls: readonly Call[],
  kept: ReadonlySet<string>,
  faultAt: number,
  stoppedAt: number,
): ChartSeries {
  const from = faultAt - 2_000;
  const buckets = Math.max(0, Math.floor((stoppedAt - from) / BUCKET_MS));
  const completed = new Array<number>(buckets).fill(0);
  const waits: number[][] = Array.from({ length: buckets }, () => []);
  for (const call of calls) {
    const end = call.settledAt ?? stoppedAt;
    const bucket = Math.floor((end - from) / BUCKET_MS);
    if (bucket >= 0 && bucket < buckets) {
      if (call.ok === true && kept.has(call.key)) completed[bucket]!++;
      waits[bucket]!.push(end - call.startedAt);
    }
    // A caller still waiting at a bucket's end counts there at its age then (as series.ts does).
    for (
      let b = Math.max(0, Math.floor((call.startedAt - from) / BUCKET_MS));
      b < Math.min(bucket, buckets);
      b++
    ) {
      waits[b]!.push(from + (b + 1) * BUCKET_MS - call.startedAt);
    }
  }
  return {
    fromS: -2,
    bucketMs: BUCKET_MS,
    throughput: completed.map((count) => (count * 1000) / BUCKET_MS),
    p99WaitMs: waits.map((list) =>
      list.length === 0
        ? null
        : percentile(
            list.sort((a, b) => a - b),
            0.99,
          ),
    ),
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
