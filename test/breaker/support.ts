// Test helpers for the breaker: a fake monotonic clock, a seeded random source and fast-check
// settings that print the seed and replay it with `SEED=… [FC_PATH=…]`.
import type { CircuitBreakerEnvironment } from '../../src/breaker/index.js';
import { seededRandom as kitRandom } from '../kit/seeded-random.js';

/** A hand-driven clock; `time` may be set backwards to exercise the breaker's clamp. */
export class FakeClock {
  constructor(public time = 0) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}

/** The test kit's seeded PRNG as a plain `() => number` in `[0, 1)`, the breaker's random shape. */
export function seededRandom(seed: number): () => number {
  const random = kitRandom(seed);
  return () => random.next();
}

/** An environment on `clock` whose listener errors are collected instead of rethrown. */
export function testEnvironment(
  clock: FakeClock,
  random?: () => number,
): CircuitBreakerEnvironment & {
  listenerErrors: unknown[];
} {
  const listenerErrors: unknown[] = [];
  return {
    listenerErrors,
    now: () => clock.now(),
    random: random ?? seededRandom(1),
    reportListenerError: (error) => listenerErrors.push(error),
  };
}

/** `fc.assert` parameters: `runs` runs, or the replay given by `SEED` (and `FC_PATH`). */
export function propertySettings(runs: number): { numRuns: number; seed?: number; path?: string } {
  const seed = process.env.SEED;
  const path = process.env.FC_PATH;
  return {
    numRuns: runs,
    ...(seed !== undefined && seed !== '' ? { seed: Number(seed) } : {}),
    ...(path !== undefined && path !== '' ? { path } : {}),
  };
}
