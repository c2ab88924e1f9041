// Test helpers for the breaker: a fake monotonic clock, a seeded random source and fast-check
// settings that print the seed and replay it with `SEED=… [FC_PATH=…]`.
import type { CircuitBreakerEnvironment } from '../../src/breaker/index.js';

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

/** mulberry32: a small, fast, seeded PRNG with uniform output in `[0, 1)`. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
