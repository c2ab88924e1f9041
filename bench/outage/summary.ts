// What one contender's run amounts to, computed from its call log once the run stopped: caller
// latency during the blip, outcome counts, the baseline rate and the time from heal back to it.
// Pure functions of the log and the timeline, so they are tested on hand-made logs.
import { type CallLog, Group, Outcome, type Timeline } from './call-log.js';
import type { CallCounts } from './messages.js';
import { type ChartSeries, chartSeries, percentile } from './series.js';

export interface LatencyStats {
  /** Calls counted: started during the blip; still pending ones at their age when the run stopped. */
  calls: number;
  p50: number;
  p99: number;
  max: number;
}

/** Measured by the contender's process beside its calls. */
export interface ProcessFigures {
  /** `monitorEventLoopDelay` p99 from the blip to the end, ms. */
  eventLoopDelayP99Ms: number;
  /** Highest heap use from the blip to the end, less the heap at the blip (after a full GC), MB. */
  heapGrowthMb: number;
  /** Ticks of the unrelated task that ran, per tick due, from the blip to the end, in percent. */
  taskPacePercent: number;
  /** Error names the calls failed with, and how often. */
  errors: Record<string, number>;
}

export interface ContenderSummary extends ProcessFigures {
  contender: string;
  counts: CallCounts & { issued: number };
  blipLatencyMs: LatencyStats;
  /** Null for a client without a circuit breaker. */
  circuit: CircuitFigures | null;
  /** In a cluster's run: the calls of the proxied primary and of the others, apart. */
  cluster?: ClusterFigures;
  /** Completed calls per second over the second half of the warm-up. */
  baselineCallsPerSecond: number;
  /** From the heal to the start of the first window of `FULL_WINDOW_MS` at ≥ 90% of the baseline. */
  healToFullMs: number;
  /** False when no such window came before the run stopped (`healToFullMs` is then a lower bound). */
  recovered: boolean;
  series: ChartSeries;
}

export interface CircuitFigures {
  /** Whether the circuit opened during the blip. */
  opened: boolean;
  /** From the start of the blip to the circuit opening; the blip's length when it did not. */
  openedAfterMs: number;
  /** p99 latency of the calls started from the opening to the heal; 0 when it did not open. */
  p99AfterOpenMs: number;
}

export interface ClusterFigures {
  /**
   * Completed calls per second of the other primaries' keys over the second half of the blip, in
   * percent of their baseline: whether the healthy two thirds kept their rate.
   */
  directRatePercent: number;
  /**
   * p99 latency of the proxied primary's calls started from the circuit opening to the heal: how
   * fast its callers were turned away. Undefined without a circuit, or when it did not open.
   */
  proxiedP99AfterOpenMs: number | undefined;
  /**
   * The same calls by when the client settled them (call-log.ts `settles`): a rejection decided
   * inside the call by its return, apart from what ran before its caller's reaction.
   */
  proxiedSettledP99AfterOpenMs: number | undefined;
}

/** The window a recovered rate is judged over. */
export const FULL_WINDOW_MS = 250;
/** Fraction of the baseline rate that counts as full throughput. */
export const FULL_FRACTION = 0.9;

export function summarizeCalls(
  contender: string,
  log: CallLog,
  timeline: Timeline,
  figures: ProcessFigures,
  options: { hasCircuit: boolean; leadMs: number; bucketMs: number; cluster?: boolean },
): ContenderSummary {
  // The log is sized for every call the schedule can offer; a call left out would skew every figure.
  if (log.unrecorded > 0) throw new Error(`${log.unrecorded} calls did not fit in the call log`);
  const { blipAt, healAt, circuitOpenedAt } = timeline;
  const baselineFrom = Math.max(timeline.startedAt, blipAt - (blipAt - timeline.startedAt) / 2);
  const baseline = completedBetween(log, baselineFrom, blipAt) / ((blipAt - baselineFrom) / 1000);
  const recovery = healToFull(log, timeline, baseline);
  const opened = circuitOpenedAt !== undefined && circuitOpenedAt >= blipAt && circuitOpenedAt < healAt;
  const circuit: CircuitFigures | null = !options.hasCircuit
    ? null
    : opened
      ? {
          opened,
          openedAfterMs: circuitOpenedAt - blipAt,
          p99AfterOpenMs: latencyStats(log, circuitOpenedAt, healAt, timeline.settledAt).p99,
        }
      : { opened, openedAfterMs: healAt - blipAt, p99AfterOpenMs: 0 };
  return {
    contender,
    counts: { ...log.counts, issued: log.issued },
    blipLatencyMs: latencyStats(log, blipAt, healAt, timeline.settledAt),
    circuit,
    baselineCallsPerSecond: baseline,
    healToFullMs: recovery.ms,
    recovered: recovery.recovered,
    ...figures,
    series: chartSeries(log, timeline, options.leadMs, options.bucketMs),
    ...(options.cluster === true ? { cluster: clusterFigures(log, timeline, baselineFrom, opened) } : {}),
  };
}

function clusterFigures(
  log: CallLog,
  timeline: Timeline,
  baselineFrom: number,
  opened: boolean,
): ClusterFigures {
  const { blipAt, healAt, circuitOpenedAt, settledAt } = timeline;
  const rate = (from: number, to: number) =>
    completedBetween(log, from, to, Group.Direct) / ((to - from) / 1000);
  const secondHalf = blipAt + (healAt - blipAt) / 2;
  const baseline = rate(baselineFrom, blipAt);
  return {
    directRatePercent: baseline > 0 ? (rate(secondHalf, healAt) * 100) / baseline : 0,
    proxiedP99AfterOpenMs: opened
      ? latencyStats(log, circuitOpenedAt!, healAt, settledAt, Group.Proxied).p99
      : undefined,
    proxiedSettledP99AfterOpenMs: opened
      ? latencyStats(log, circuitOpenedAt!, healAt, settledAt, Group.Proxied, log.settles).p99
      : undefined,
  };
}

/**
 * Latency of the calls started in [from, to) (of one group, when given): settled ones by their
 * settlement as their caller saw it (or as `ends` says: `log.settles` for the client's side),
 * pending ones by their age at `settledAt` (a lower bound of what their caller waits). All zero
 * when none started.
 */
export function latencyStats(
  log: CallLog,
  from: number,
  to: number,
  settledAt: number,
  group?: number,
  ends: Float64Array = log.ends,
): LatencyStats {
  const latencies: number[] = [];
  for (let i = 0; i < log.length; i++) {
    const start = log.starts[i]!;
    if (start < from || start >= to || (group !== undefined && log.groups[i] !== group)) continue;
    const end = log.outcomes[i] === Outcome.Pending ? settledAt : ends[i]!;
    latencies.push(end - start);
  }
  if (latencies.length === 0) return { calls: 0, p50: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(latencies).sort();
  return {
    calls: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1]!,
  };
}

function completedBetween(log: CallLog, from: number, to: number, group?: number): number {
  let completed = 0;
  for (let i = 0; i < log.length; i++) {
    if (log.outcomes[i] !== Outcome.Completed || (group !== undefined && log.groups[i] !== group)) continue;
    const end = log.ends[i]!;
    if (end >= from && end < to) completed++;
  }
  return completed;
}

/**
 * The first window of FULL_WINDOW_MS, starting at a completion at or after the heal, that holds at
 * least FULL_FRACTION of the baseline's completions for that long, and ends before the run did.
 */
export function healToFull(
  log: CallLog,
  timeline: Pick<Timeline, 'healAt' | 'stoppedAt'>,
  baselinePerSecond: number,
): { ms: number; recovered: boolean } {
  const { healAt, stoppedAt } = timeline;
  const ends: number[] = [];
  for (let i = 0; i < log.length; i++) {
    if (log.outcomes[i] === Outcome.Completed && log.ends[i]! >= healAt) ends.push(log.ends[i]!);
  }
  const sorted = Float64Array.from(ends).sort();
  const needed = Math.max(1, Math.ceil((FULL_FRACTION * baselinePerSecond * FULL_WINDOW_MS) / 1000));
  let last = 0;
  for (let first = 0; first < sorted.length; first++) {
    const windowEnd = sorted[first]! + FULL_WINDOW_MS;
    if (windowEnd > stoppedAt) break;
    while (last < sorted.length && sorted[last]! < windowEnd) last++;
    if (last - first >= needed) return { ms: sorted[first]! - healAt, recovered: true };
  }
  return { ms: stoppedAt - healAt, recovered: false };
}
