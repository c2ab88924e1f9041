// One endpoint's exact outcome history: a ring of individual outcomes over typed arrays with
// running counts (BREAKER.md 1-3 and 5; seed 000 "How a circuit opens and recovers" 1).

/** Where a history lives: an ArrayBuffer of its own, or a slot of a SharedArrayBuffer (shared/). */
export interface HistoryStorage {
  /** When each outcome became known, in clock milliseconds; `maximumSampleCount` long. */
  readonly times: Float64Array;
  /** 1 for a failure, 0 for a success; `maximumSampleCount` long. */
  readonly outcomes: Uint8Array;
  /** `[head, count, failures]`: index of the oldest entry, entries held, failures held. */
  readonly counters: Int32Array;
}

const HEAD = 0;
const COUNT = 1;
const FAILURES = 2;

/** Bytes of a history of `maximumSampleCount` outcomes: times, the three counters, outcomes. */
export function historyBytes(maximumSampleCount: number): number {
  return maximumSampleCount * 9 + 12;
}

/** The storage of a history at `byteOffset` (a multiple of 8) in `buffer`. */
export function historyStorage(
  maximumSampleCount: number,
  buffer: ArrayBufferLike = new ArrayBuffer(historyBytes(maximumSampleCount)),
  byteOffset = 0,
): HistoryStorage {
  const counters = byteOffset + maximumSampleCount * 8;
  return {
    times: new Float64Array(buffer, byteOffset, maximumSampleCount),
    counters: new Int32Array(buffer, counters, 3),
    outcomes: new Uint8Array(buffer, counters + 12, maximumSampleCount),
  };
}

/**
 * A bounded FIFO of `(time, failed)` outcomes. No buckets: each outcome leaves exactly when it
 * expires (`now - time >= samplingWindow`) or when `maximumSampleCount` newer ones push it out.
 * Times must be non-decreasing (the breaker clamps its clock), so the oldest entry expires first.
 * Every read and write evicts *all* expired entries first, so an idle gap is settled in one step.
 *
 * "Now" is read from `clock[0]`, a cell the owner writes, rather than passed as an argument: on
 * Node 20 a double passed to a call V8 does not inline is boxed, one allocation per outcome.
 * The counts live in typed-array cells so that a shared circuit can keep its history in a
 * SharedArrayBuffer; it calls every method inside its per-circuit guard (shared/shared-circuit.ts).
 */
export class OutcomeHistory {
  private readonly times: Float64Array;
  private readonly outcomes: Uint8Array;
  private readonly counters: Int32Array;
  private readonly capacity: number;
  private readonly samplingWindow: number;
  /** `clock[0]` is the current time, kept by the owner (never decreasing). */
  private readonly clock: Float64Array;

  constructor(
    maximumSampleCount: number,
    samplingWindow: number,
    clock: Float64Array,
    storage: HistoryStorage = historyStorage(maximumSampleCount),
  ) {
    this.times = storage.times;
    this.outcomes = storage.outcomes;
    this.counters = storage.counters;
    this.capacity = maximumSampleCount;
    this.samplingWindow = samplingWindow;
    this.clock = clock;
  }

  /** Outcomes held, as of the last eviction. */
  get total(): number {
    return this.counters[COUNT]!;
  }

  /** Failures held, as of the last eviction. */
  get failures(): number {
    return this.counters[FAILURES]!;
  }

  /** Adds an outcome known now (`clock[0]`), after evicting. */
  record(failed: boolean): void {
    const counters = this.counters;
    // Inline test of the oldest entry, so the eviction loop runs (and is compiled) only when due.
    if (counters[COUNT] !== 0 && this.clock[0]! - this.times[counters[HEAD]!]! >= this.samplingWindow)
      this.evictExpired();
    if (counters[COUNT] === this.capacity) this.dropOldest();
    let tail = counters[HEAD]! + counters[COUNT]!;
    if (tail >= this.capacity) tail -= this.capacity;
    this.times[tail] = this.clock[0]!;
    this.outcomes[tail] = failed ? 1 : 0;
    counters[COUNT]!++;
    if (failed) counters[FAILURES]!++;
  }

  /**
   * Adds `count` successes whose times are `times[from...]` (non-decreasing), each clamped by
   * `clock[0]` and by the ones before it, as `count` calls of `record(false)` with the clock
   * advanced to each would, leaving `clock[0]` at the last one's time. In one pass: with times
   * non-decreasing, what those calls leave is the newest `maximumSampleCount` entries at most,
   * without those expired at the last time (an expired entry is older than any kept one).
   */
  recordSuccesses(times: Float64Array, from: number, count: number): void {
    const clock = this.clock;
    const floor = clock[0]!;
    const last = times[from + count - 1]!;
    if (last > floor) clock[0] = last;
    this.evictExpired();
    const counters = this.counters;
    const capacity = this.capacity;
    // Only the newest `capacity` of the new ones can stay; the oldest held ones make room for them
    // (at most all of them, since `count - skip` is at most `capacity`).
    const skip = count > capacity ? count - capacity : 0;
    const drop = counters[COUNT]! + count - skip - capacity;
    if (drop > 0) {
      // With no failure held, the drop is a move of the head; else one dropOldest per entry.
      if (counters[FAILURES] !== 0) for (let i = 0; i < drop; i++) this.dropOldest();
      else {
        const head = counters[HEAD]! + drop;
        counters[HEAD] = head >= capacity ? head - capacity : head;
        counters[COUNT]! -= drop;
      }
    }
    let tail = counters[HEAD]! + counters[COUNT]!;
    if (tail >= capacity) tail -= capacity;
    for (let i = skip; i < count; i++) {
      // Clamped: the times are non-decreasing, so an earlier one's clamp is the clock's.
      this.times[tail] = Math.max(times[from + i]!, floor);
      this.outcomes[tail] = 0;
      tail = tail + 1 === capacity ? 0 : tail + 1;
    }
    counters[COUNT]! += count - skip;
    this.evictExpired();
  }

  /** Drops every entry that has expired by now; O(1) when even the newest has. */
  evictExpired(): void {
    const counters = this.counters;
    if (counters[COUNT] === 0) return;
    const now = this.clock[0]!;
    let newest = counters[HEAD]! + counters[COUNT]! - 1;
    if (newest >= this.capacity) newest -= this.capacity;
    if (now - this.times[newest]! >= this.samplingWindow) {
      this.clear();
      return;
    }
    // The newest entry stays, so this loop ends before the ring is empty.
    while (now - this.times[counters[HEAD]!]! >= this.samplingWindow) this.dropOldest();
  }

  /** Forgets everything in O(1): pointers only, the arrays are not zeroed. */
  clear(): void {
    this.counters.fill(0);
  }

  private dropOldest(): void {
    const counters = this.counters;
    const head = counters[HEAD]!;
    counters[FAILURES]! -= this.outcomes[head]!;
    counters[HEAD] = head + 1 === this.capacity ? 0 : head + 1;
    counters[COUNT]!--;
  }
}
