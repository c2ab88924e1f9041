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
  /** Runs `callback` once, `delayMs` milliseconds of this clock's time from now; returns its handle. */
  set(callback: () => void, delayMs: number): object;
  /** Cancels the timer of `handle` if it has not run; does nothing for one that ran or was cleared. */
  clear(handle: object): void;
}

export const systemClock: Clock = { now: () => performance.now() };

/**
 * Milliseconds on the process's monotonic clock (`process.hrtime`'s), one origin for every thread:
 * `performance.now()` plus this thread's offset to it, measured once when the module loads. Threads
 * that compare times (a circuit shared across worker threads) need a common origin, and
 * `performance.timeOrigin` is not one: it is the wall clock when the thread started, so a wall
 * clock step between two threads' starts (NTP, a resumed VM) would put their readings apart.
 */
const monotonicOffset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
export const processClock: Clock = { now: () => performance.now() + monotonicOffset };
