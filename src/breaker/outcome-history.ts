// One endpoint's exact outcome history: a ring of individual outcomes over typed arrays with
// running counts (BREAKER.md 1-3 and 5; seed 000 "How a circuit opens and recovers" 1).

/**
 * A bounded FIFO of `(time, failed)` outcomes. No buckets: each outcome leaves exactly when it
 * expires (`now - time >= samplingWindow`) or when `maximumSampleCount` newer ones push it out.
 * Times must be non-decreasing (the breaker clamps its clock), so the oldest entry expires first.
 * Every read and write evicts *all* expired entries first, so an idle gap is settled in one step.
 *
 * "Now" is read from `clock[0]`, a cell the owner writes, rather than passed as an argument: on
 * Node 20 a double passed to a call V8 does not inline is boxed, one allocation per outcome.
 */
export class OutcomeHistory {
  /** When each outcome became known, in clock milliseconds. */
  private readonly times: Float64Array;
  /** 1 for a failure, 0 for a success; summed by `dropOldest`. */
  private readonly outcomes: Uint8Array;
  private readonly capacity: number;
  private readonly samplingWindow: number;
  /** `clock[0]` is the current time, kept by the owner (never decreasing). */
  private readonly clock: Float64Array;
  /** Index of the oldest entry. */
  private head = 0;
  private count = 0;
  private failureCount = 0;

  constructor(maximumSampleCount: number, samplingWindow: number, clock: Float64Array) {
    // One buffer for both arrays: one allocation, one backing store per history.
    const buffer = new ArrayBuffer(maximumSampleCount * 9);
    this.times = new Float64Array(buffer, 0, maximumSampleCount);
    this.outcomes = new Uint8Array(buffer, maximumSampleCount * 8, maximumSampleCount);
    this.capacity = maximumSampleCount;
    this.samplingWindow = samplingWindow;
    this.clock = clock;
  }

  /** Outcomes held, as of the last eviction. */
  get total(): number {
    return this.count;
  }

  /** Failures held, as of the last eviction. */
  get failures(): number {
    return this.failureCount;
  }

  /** Adds an outcome known now (`clock[0]`), after evicting. */
  record(failed: boolean): void {
    // Inline test of the oldest entry, so the eviction loop runs (and is compiled) only when due.
    if (this.count !== 0 && this.clock[0]! - this.times[this.head]! >= this.samplingWindow)
      this.evictExpired();
    if (this.count === this.capacity) this.dropOldest();
    let tail = this.head + this.count;
    if (tail >= this.capacity) tail -= this.capacity;
    this.times[tail] = this.clock[0]!;
    this.outcomes[tail] = failed ? 1 : 0;
    this.count++;
    if (failed) this.failureCount++;
  }

  /** Drops every entry that has expired by now; O(1) when even the newest has. */
  evictExpired(): void {
    if (this.count === 0) return;
    const now = this.clock[0]!;
    let newest = this.head + this.count - 1;
    if (newest >= this.capacity) newest -= this.capacity;
    if (now - this.times[newest]! >= this.samplingWindow) {
      this.clear();
      return;
    }
    // The newest entry stays, so this loop ends before the ring is empty.
    while (now - this.times[this.head]! >= this.samplingWindow) this.dropOldest();
  }

  /** Forgets everything in O(1): pointers only, the arrays are not zeroed. */
  clear(): void {
    this.head = 0;
    this.count = 0;
    this.failureCount = 0;
  }

  private dropOldest(): void {
    this.failureCount -= this.outcomes[this.head]!;
    this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
    this.count--;
  }
}
