// What the breaker takes from its surroundings. The system clock and randomness come from the
// project's one clock and one random module (STYLE.md "Async, time, randomness"); everything in
// `src/breaker` receives them injected.
import { systemClock } from '../util/clock.js';
import { type RandomSource, systemRandom } from '../util/random.js';
import { rethrowAsync } from '../util/rethrow-async.js';

export type { RandomSource };

/** A monotonic clock in milliseconds. Tests inject a fake one. */
export interface MonotonicClock {
  /** Milliseconds from any fixed origin, never going backwards (`performance.now()`). */
  now(): number;
}

/**
 * What a breaker takes from its surroundings. Every member is optional; the defaults are the
 * system clock (`performance.now()`), `Math.random()` and `rethrowAsync` (util/rethrow-async.ts).
 */
export interface CircuitBreakerEnvironment {
  /** Monotonic milliseconds. A value below an earlier one is clamped to the earlier one. */
  now?(): number;
  /** Uniform in `[0, 1)`; drawn only when `openDurationJitter` is above 0. */
  random?(): number;
  /** Receives what a transition listener throws. The breaker's state is already committed. */
  reportListenerError?(error: unknown): void;
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
