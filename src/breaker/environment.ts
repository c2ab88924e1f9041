// The breaker's only reader of the system clock and only source of system randomness (STYLE.md
// "Async, time, randomness"): everything else in `src/breaker` receives them injected.

/** A monotonic clock in milliseconds. Tests inject a fake one. */
export interface MonotonicClock {
  now(): number;
}

/** A source of uniform random numbers in `[0, 1)`. Tests inject a seeded one. */
export interface RandomSource {
  random(): number;
}

/**
 * What a breaker takes from its surroundings. Every member is optional; the defaults are the
 * system clock (`performance.now()`), `Math.random()` and {@link rethrowAsync}.
 */
export interface CircuitBreakerEnvironment {
  /** Monotonic milliseconds. A value below an earlier one is clamped to the earlier one. */
  now?(): number;
  /** Uniform in `[0, 1)`; drawn only when `openDurationJitter` is above 0. */
  random?(): number;
  /** Receives what a transition listener throws. The breaker's state is already committed. */
  reportListenerError?(error: unknown): void;
}

/** `performance.now()`: monotonic, unaffected by wall-clock changes. */
export const systemClock: MonotonicClock = { now: () => performance.now() };

export const systemRandom: RandomSource = { random: () => Math.random() };

/**
 * The default for a throwing listener: rethrow it from a microtask, as `node:diagnostics_channel`
 * does with a throwing subscriber. The caller of the breaker is unaffected, the other listeners
 * still run, and the bug surfaces as an uncaught exception instead of vanishing.
 */
export function rethrowAsync(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

export function clockOf(environment: CircuitBreakerEnvironment): MonotonicClock {
  return typeof environment.now === 'function' ? (environment as MonotonicClock) : systemClock;
}

export function randomOf(environment: CircuitBreakerEnvironment): RandomSource {
  return typeof environment.random === 'function' ? (environment as RandomSource) : systemRandom;
}

export function listenerErrorReporterOf(environment: CircuitBreakerEnvironment): (error: unknown) => void {
  const report = environment.reportListenerError;
  return typeof report === 'function' ? (error) => report.call(environment, error) : rethrowAsync;
}
