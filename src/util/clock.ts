// The one place that reads time (STYLE.md "Async, time, randomness"). Everything else receives a
// Clock, so tests run on a fake one.

/** Monotonic milliseconds. */
export interface Clock {
  /** Milliseconds from any fixed origin, never going backwards (`performance.now()`). */
  now(): number;
}

export const systemClock: Clock = { now: () => performance.now() };
