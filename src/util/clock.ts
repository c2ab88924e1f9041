// The one place that reads time (STYLE.md "Async, time, randomness"). Everything else receives a
// Clock, so tests run on a fake one.

/** Monotonic milliseconds. */
export interface Clock {
  now(): number;
  /**
   * Timers on this clock's own time, for a simulated clock (test/sim): when present, every timer
   * of the client runs on it instead of the global `setTimeout` (timers.ts), so no real time passes.
   */
  readonly timers?: ClockTimers | undefined;
}

/** A scheduler of callbacks in a clock's time; handles are opaque to the caller. */
export interface ClockTimers {
  set(callback: () => void, delayMs: number): object;
  clear(handle: object): void;
}

export const systemClock: Clock = { now: () => performance.now() };
