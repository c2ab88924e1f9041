// The one place that reads time (STYLE.md "Async, time, randomness"). Everything else receives a
// Clock, so tests run on a fake one.

/** Monotonic milliseconds. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => performance.now() };

/**
 * Milliseconds since the Unix epoch, monotonic within a thread: `performance.timeOrigin +
 * performance.now()`. `performance.now()` counts from each thread's own start, so threads that
 * compare times (a circuit shared across worker threads) need this common origin.
 */
export const epochClock: Clock = { now: () => performance.timeOrigin + performance.now() };
