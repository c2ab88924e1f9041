// The outage scenario's arithmetic on hand-made call logs: outcome counts, blip latency with
// pending calls at their age, the baseline and the time from heal back to it, and the chart's
// buckets, where a stuck caller climbs through every bucket it waits in; in a cluster's run, the
// figures of the healthy primaries and of the black-holed one.
import { describe, expect, it } from 'vitest';
import { CallLog, Group, Outcome, type Timeline } from '../../bench/outage/call-log.js';
import { CLUSTER_METRICS, clusterTargets } from '../../bench/outage/cluster-blip.js';
import { chartSeries, percentile } from '../../bench/outage/series.js';
import { healToFull, latencyStats, summarizeCalls } from '../../bench/outage/summary.js';

const TIMELINE: Timeline = {
  startedAt: 0,
  blipAt: 1_000,
  healAt: 2_000,
  stoppedAt: 3_000,
  settledAt: 3_500,
  circuitOpenedAt: undefined,
};

const FIGURES = {
  eventLoopDelayP99Ms: 1,
  heapGrowthMb: 2,
  taskPacePercent: 100,
  errors: {},
};

/** A log of calls given as [start, end or undefined (pending), outcome]. */
function logOf(calls: readonly [number, number | undefined, Outcome][]): CallLog {
  const log = new CallLog(calls.length + 1);
  for (const [start, end, outcome] of calls) {
    const index = log.start(start);
    if (end !== undefined && outcome !== Outcome.Pending) log.settle(index, outcome, end);
  }
  return log;
}

/** Calls completing every `everyMs` from `from` to `to`, each taking `tookMs`. */
function steady(from: number, to: number, everyMs: number, tookMs = 1): [number, number, Outcome][] {
  const calls: [number, number, Outcome][] = [];
  for (let start = from; start + tookMs < to; start += everyMs)
    calls.push([start, start + tookMs, Outcome.Completed]);
  return calls;
}

describe('CallLog', () => {
  it('counts every outcome and what is pending, and keeps counting past its capacity', () => {
    const log = new CallLog(2);
    const a = log.start(0);
    const b = log.start(1);
    const c = log.start(2);
    expect([a, b, c]).toEqual([0, 1, -1]);
    log.settle(a, Outcome.Completed, 5);
    log.settle(c, Outcome.RejectedFast, 6);
    log.missed(3);
    expect(log.counts).toEqual({
      completed: 1,
      rejectedFast: 1,
      timedOut: 0,
      failed: 0,
      pending: 1,
      notIssued: 3,
    });
    expect(log.issued).toBe(3);
    expect(log.unrecorded).toBe(1);
    expect([log.ends[0], log.outcomes[0], log.outcomes[1]]).toEqual([5, Outcome.Completed, Outcome.Pending]);
  });
});

describe('latencyStats', () => {
  it('takes the calls started during the blip, a pending one at its age when counted', () => {
    const log = logOf([
      [500, 501, Outcome.Completed], // before the blip
      [1_000, 1_002, Outcome.RejectedFast],
      [1_100, 1_104, Outcome.TimedOut],
      [1_200, undefined, Outcome.Pending],
      [2_000, 2_001, Outcome.Completed], // after the heal
    ]);
    expect(latencyStats(log, 1_000, 2_000, 3_500)).toEqual({ calls: 3, p50: 4, p99: 2_300, max: 2_300 });
    expect(latencyStats(log, 5_000, 6_000, 6_000)).toEqual({ calls: 0, p50: 0, p99: 0, max: 0 });
  });

  it('uses nearest-rank percentiles', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile(Float64Array.of(7), 0.99)).toBe(7);
  });
});

describe('healToFull', () => {
  it('is the start of the first full window after the heal, not the burst of answers that came first', () => {
    const calls = [
      ...steady(0, 1_000, 1), // baseline: 1,000/s
      ...Array.from({ length: 50 }, (): [number, number, Outcome] => [1_500, 2_000, Outcome.Completed]),
      ...steady(2_400, 3_000, 1),
    ];
    const result = healToFull(logOf(calls), TIMELINE, 1_000);
    expect(result.recovered).toBe(true);
    expect(result.ms).toBeCloseTo(401, 5);
  });

  it('says when the rate never came back before the run stopped, with the time it watched', () => {
    const calls = [...steady(0, 1_000, 1), ...steady(2_000, 3_000, 4)];
    expect(healToFull(logOf(calls), TIMELINE, 1_000)).toEqual({ ms: 1_000, recovered: false });
  });
});

describe('summarizeCalls', () => {
  it('measures the baseline over the second half of the warm-up and reports the circuit only with one', () => {
    const log = logOf([...steady(0, 1_000, 2), ...steady(1_300, 2_000, 1), ...steady(2_000, 3_000, 2)]);
    const opened = summarizeCalls('a', log, { ...TIMELINE, circuitOpenedAt: 1_300 }, FIGURES, {
      hasCircuit: true,
      leadMs: 500,
      bucketMs: 250,
    });
    expect(opened.baselineCallsPerSecond).toBe(500);
    expect(opened.circuit).toEqual({ opened: true, openedAfterMs: 300, p99AfterOpenMs: 1 });
    expect(opened.counts.completed).toBe(log.counts.completed);
    expect(opened.recovered).toBe(true);

    const closed = summarizeCalls('b', log, TIMELINE, FIGURES, {
      hasCircuit: true,
      leadMs: 500,
      bucketMs: 250,
    });
    expect(closed.circuit).toEqual({ opened: false, openedAfterMs: 1_000, p99AfterOpenMs: 0 });
    const none = summarizeCalls('c', log, TIMELINE, FIGURES, {
      hasCircuit: false,
      leadMs: 500,
      bucketMs: 250,
    });
    expect(none.circuit).toBeNull();
  });

  it('refuses a log that could not hold every call', () => {
    const log = new CallLog(1);
    log.start(0);
    log.start(1);
    const options = { hasCircuit: false, leadMs: 0, bucketMs: 250 };
    expect(() => summarizeCalls('d', log, TIMELINE, FIGURES, options)).toThrow(
      '1 calls did not fit in the call log',
    );
  });
});

describe('chartSeries', () => {
  it('puts completions per second in buckets from the lead before the blip to the stop', () => {
    const log = logOf(steady(0, 3_000, 10));
    const series = chartSeries(log, TIMELINE, 500, 250);
    expect(series.fromS).toBe(-0.5);
    expect(series.throughput).toHaveLength(10);
    expect(series.throughput.every((rate) => rate === 100)).toBe(true);
    expect(series.p99WaitMs.every((wait) => wait === 1)).toBe(true);
  });

  it('shows a stuck caller at its age at the end of every bucket it waits through, then when answered', () => {
    const log = logOf([[1_000, 1_900, Outcome.Completed]]);
    const series = chartSeries(log, TIMELINE, 0, 250);
    expect(series.p99WaitMs.slice(0, 5)).toEqual([250, 500, 750, 900, null]);
    expect(series.throughput.slice(0, 5)).toEqual([0, 0, 0, 4, 0]);
  });

  it('leaves buckets with no caller empty, and counts only completions as throughput', () => {
    const log = logOf([
      [1_010, 1_011, Outcome.RejectedFast],
      [1_600, undefined, Outcome.Pending],
    ]);
    const series = chartSeries(log, TIMELINE, 0, 250);
    expect(series.p99WaitMs.slice(0, 4)).toEqual([1, null, 150, 400]);
    expect(series.throughput.every((rate) => rate === 0)).toBe(true);
  });
});

/** Calls of `group` starting every `everyMs` in [from, to), each settling `tookMs` later as `outcome`. */
function calls(
  log: CallLog,
  group: number,
  from: number,
  to: number,
  everyMs: number,
  tookMs: number,
  outcome: Exclude<Outcome, typeof Outcome.Pending> = Outcome.Completed,
): void {
  for (let start = from; start < to; start += everyMs)
    log.settle(log.start(start, group), outcome, start + tookMs);
}

describe('the cluster figures of a contender', () => {
  it('are the other primaries’ rate in the blip’s second half against their baseline, and the black-holed one’s p99 once its circuit opened', () => {
    const log = new CallLog(10_000);
    calls(log, Group.Direct, 0, 1_000, 2, 1); // baseline: 500/s
    calls(log, Group.Direct, 1_000, 1_500, 10, 1); // 100/s while callers are stuck
    calls(log, Group.Direct, 1_500, 2_000, 2.5, 1); // 400/s: 80% of the baseline
    calls(log, Group.Proxied, 0, 1_000, 4, 1);
    calls(log, Group.Proxied, 1_000, 1_400, 100, 400, Outcome.TimedOut); // waited, before the opening
    calls(log, Group.Proxied, 1_400, 2_000, 1, 0.05, Outcome.RejectedFast);
    const options = { hasCircuit: true, leadMs: 500, bucketMs: 250, cluster: true };
    const opened = { ...TIMELINE, circuitOpenedAt: 1_400 };
    const summary = summarizeCalls('respire + breaker', log, opened, FIGURES, options);
    expect(summary.cluster?.directRatePercent).toBeCloseTo(80, 5);
    expect(summary.cluster?.proxiedP99AfterOpenMs).toBeCloseTo(0.05, 5);
    const values = CLUSTER_METRICS.map((metric) => metric.value(summary));
    expect(values[0]).toBeCloseTo(80, 5);
    expect(values[1]).toBeCloseTo(0.05, 5);
    expect(clusterTargets(summary).map((check) => check.met)).toEqual([false, true]);

    const neverOpened = summarizeCalls(
      'x',
      log,
      { ...TIMELINE, circuitOpenedAt: undefined },
      FIGURES,
      options,
    );
    expect(neverOpened.cluster?.proxiedP99AfterOpenMs).toBeUndefined();
    expect(clusterTargets(neverOpened)[1]).toMatchObject({
      measured: 'the circuit never opened',
      met: false,
    });
    const standalone = summarizeCalls('y', log, opened, FIGURES, { ...options, cluster: false });
    expect(standalone.cluster).toBeUndefined();
  });
});
