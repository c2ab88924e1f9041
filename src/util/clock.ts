// The one place that reads time (STYLE.md "Async, time, randomness"). Everything else receives a
// Clock, so tests run on a fake one.

/** Monotonic milliseconds. */
export interface Clock {
  /** Milliseconds from any fixed origin, never going backwards (`performance.now()`). */
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

/**
 * Milliseconds since the Unix epoch, monotonic within a thread: `performance.timeOrigin +
 * performance.now()`. `performance.now()` counts from each thread's own start, so threads that
 * compare times (a circuit shared across worker threads) need this common origin.
 */
export const epochClock: Clock = { now: () => performance.timeOrigin + performance.now() };
