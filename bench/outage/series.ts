// The chart's time series for one contender: completed calls per second and the p99 wait of
// callers, per bucket. A caller's wait counts in the bucket where its call settled and, while it
// is still waiting, at the end of every bucket it spans (at its age then), so a stuck caller shows
// as a climbing line during the blip instead of a single point when it is finally answered.
import { type CallLog, Outcome, type Timeline } from './call-log.js';

export interface ChartSeries {
  /** Start of the first bucket, seconds from the start of the blip (negative: before it). */
  fromS: number;
  bucketMs: number;
  /** Completed calls per second, per bucket. */
  throughput: number[];
  /** p99 wait of the callers settled in or waiting through each bucket, ms; null when none. */
  p99WaitMs: (number | null)[];
}

/**
 * Buckets of `bucketMs` from `leadMs` before the blip (or the start, if later) to the last whole
 * bucket before the run stopped.
 */
export function chartSeries(log: CallLog, timeline: Timeline, leadMs: number, bucketMs: number): ChartSeries {
  const { blipAt, stoppedAt } = timeline;
  const leadBuckets = Math.floor(Math.min(leadMs, blipAt - timeline.startedAt) / bucketMs);
  const from = blipAt - leadBuckets * bucketMs;
  const buckets = Math.max(0, Math.floor((stoppedAt - from) / bucketMs));
  const completed = new Array<number>(buckets).fill(0);
  const waits: number[][] = Array.from({ length: buckets }, () => []);
  const bucketOf = (time: number) => Math.floor((time - from) / bucketMs);
  for (let i = 0; i < log.length; i++) {
    const start = log.starts[i]!;
    const pending = log.outcomes[i] === Outcome.Pending;
    const end = pending ? Number.POSITIVE_INFINITY : log.ends[i]!;
    if (end < from) continue;
    // Waiting through the end of each bucket it spans.
    for (let b = Math.max(0, bucketOf(start)); b < buckets; b++) {
      const bucketEnd = from + (b + 1) * bucketMs;
      if (bucketEnd <= start) continue;
      if (bucketEnd >= end) break;
      waits[b]!.push(bucketEnd - start);
    }
    if (pending) continue;
    const settledIn = bucketOf(end);
    if (settledIn < 0 || settledIn >= buckets) continue;
    waits[settledIn]!.push(end - start);
    if (log.outcomes[i] === Outcome.Completed) completed[settledIn]!++;
  }
  return {
    fromS: (from - blipAt) / 1000,
    bucketMs,
    throughput: completed.map((count) => (count * 1000) / bucketMs),
    p99WaitMs: waits.map((values) =>
      values.length === 0 ? null : percentile(Float64Array.from(values).sort(), 0.99),
    ),
  };
}

/** Nearest-rank percentile of ascending `sorted` (non-empty), `q` in (0, 1]. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}
