// The growing open delay across consecutive trips, capped, with jitter from a seeded random source
// (BREAKER.md 18; seeds/001: 5 s growing to 60 s). Off by default.
import { describe, expect, it } from 'vitest';
import {
  CircuitBreaker,
  openDelay,
  type RespireCircuitBreakerOptions,
  validateCircuitBreakerOptions,
} from '../../src/breaker/index.js';
import { FakeClock, seededRandom, testEnvironment } from './support.js';

/** Trips `breaker` from closed, then fails a probe after each deadline; returns each open delay. */
function delaysOfRepeatedTrips(options: RespireCircuitBreakerOptions, trips: number, random?: () => number) {
  const clock = new FakeClock(0);
  const breaker = new CircuitBreaker({ minimumFailureCount: 1, ...options }, testEnvironment(clock, random));
  const delays: number[] = [];
  let admission = breaker.tryAcquire();
  for (let trip = 0; trip < trips; trip++) {
    if (!admission.admitted) throw new Error('expected an admission');
    admission.failure();
    const { openUntil } = breaker.snapshot();
    delays.push(openUntil! - clock.time);
    clock.time = openUntil!;
    admission = breaker.tryAcquire();
  }
  return { breaker, clock, delays, admission };
}

describe('growing open delay', () => {
  it('is off by default: every trip waits openDuration', () => {
    expect(delaysOfRepeatedTrips({ openDuration: 5_000 }, 5).delays).toEqual([
      5_000, 5_000, 5_000, 5_000, 5_000,
    ]);
  });

  it('grows by openDurationMultiplier per consecutive trip up to maxOpenDuration (5 s to 60 s)', () => {
    const options = { openDuration: 5_000, openDurationMultiplier: 2, maxOpenDuration: 60_000 };
    const { delays, breaker } = delaysOfRepeatedTrips(options, 7);
    expect(delays).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
    expect(breaker.snapshot().consecutiveTrips).toBe(7);
  });

  it('starts again from openDuration after the circuit closes', () => {
    const options = { openDuration: 100, openDurationMultiplier: 3, maxOpenDuration: 10_000 };
    const { breaker, clock, admission } = delaysOfRepeatedTrips(options, 3);
    if (!admission.admitted) throw new Error('expected a probe');
    admission.success();
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', consecutiveTrips: 0 });
    const next = breaker.tryAcquire();
    if (next.admitted) next.failure();
    expect(breaker.snapshot().openUntil! - clock.time).toBe(100);
  });

  it('stays finite and capped after very many trips', () => {
    const options = validateCircuitBreakerOptions({
      openDuration: 10,
      openDurationMultiplier: 1e6,
      maxOpenDuration: 1e9,
    });
    for (const trips of [1, 2, 100, 10_000, Number.MAX_SAFE_INTEGER]) {
      const delay = openDelay(trips, options, { random: () => 0.5 });
      expect(Number.isFinite(delay)).toBe(true);
      expect(delay).toBeLessThanOrEqual(1e9);
    }
  });
});

describe('open delay jitter', () => {
  it('shortens each delay by up to openDurationJitter of itself, from the injected random source', () => {
    const options = {
      openDuration: 1_000,
      openDurationMultiplier: 2,
      maxOpenDuration: 8_000,
      openDurationJitter: 0.5,
    };
    const draws = seededRandom(42);
    const expected = [1_000, 2_000, 4_000, 8_000, 8_000].map((base) => base * (1 - 0.5 * draws()));
    const { delays } = delaysOfRepeatedTrips(options, 5, seededRandom(42));
    expect(delays.map((d) => Math.round(d * 1e6))).toEqual(expected.map((d) => Math.round(d * 1e6)));
    for (const [i, base] of [1_000, 2_000, 4_000, 8_000, 8_000].entries()) {
      expect(delays[i]).toBeGreaterThan(base / 2);
      expect(delays[i]).toBeLessThanOrEqual(base);
    }
  });

  it('spreads clients with different random sources apart', () => {
    const options = { openDuration: 10_000, openDurationJitter: 1 };
    const firstDelays = new Set(
      [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => delaysOfRepeatedTrips(options, 1, seededRandom(seed)).delays[0]),
    );
    expect(firstDelays.size).toBe(8);
  });

  it('draws no randomness while jitter is 0', () => {
    let draws = 0;
    delaysOfRepeatedTrips({ openDuration: 10, openDurationMultiplier: 2, maxOpenDuration: 100 }, 4, () => {
      draws++;
      return 0.5;
    });
    expect(draws).toBe(0);
  });

  it('treats a random value outside [0, 1) as 0, keeping the full delay', () => {
    const options = validateCircuitBreakerOptions({ openDuration: 100, openDurationJitter: 1 });
    for (const value of [1, 1.5, -0.5, Number.NaN]) {
      expect(openDelay(1, options, { random: () => value })).toBe(100);
    }
    expect(openDelay(1, options, { random: () => 0.25 })).toBe(75);
  });
});
