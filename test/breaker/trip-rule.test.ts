// The exhaustive trip-boundary property (BREAKER.md "Testing it"): for every threshold k/100 and
// k/1000 and every total up to maximumSampleCount, the trip test agrees with exact rational
// arithmetic on both sides of the boundary, and the breaker trips exactly there.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, CircuitOutcome, shouldTrip } from '../../src/breaker/index.js';
import { FakeClock, propertySettings, testEnvironment } from './support.js';

const MAXIMUM_SAMPLE_COUNT = 1024;

/** Smallest failure count f with f / total >= k / denominator, in integers. */
function boundary(k: number, denominator: number, total: number): number {
  return Math.ceil((k * total) / denominator);
}

describe('shouldTrip', () => {
  for (const denominator of [100, 1000]) {
    it(`matches exact rational arithmetic at every k/${denominator} and total 1..${MAXIMUM_SAMPLE_COUNT}`, () => {
      let mismatches = 0;
      let checked = 0;
      for (let k = 1; k <= denominator; k++) {
        const threshold = k / denominator;
        for (let total = 1; total <= MAXIMUM_SAMPLE_COUNT; total++) {
          const first = boundary(k, denominator, total);
          // Exact: trips iff failures * denominator >= k * total (and the minimum, 1 here).
          if (first - 1 >= 1 && shouldTrip(first - 1, total, 1, threshold)) mismatches++;
          if (first <= total && !shouldTrip(first, total, 1, threshold)) mismatches++;
          checked += 2;
        }
      }
      expect(checked).toBe(denominator * MAXIMUM_SAMPLE_COUNT * 2);
      expect(mismatches).toBe(0);
    });
  }

  it('needs minimumFailureCount failures whatever the rate', () => {
    for (let minimum = 1; minimum <= 64; minimum++) {
      expect(shouldTrip(minimum - 1, minimum - 1, minimum, Number.MIN_VALUE)).toBe(false);
      expect(shouldTrip(minimum, minimum, minimum, 1)).toBe(true);
    }
  });

  it('never trips on an empty history', () => {
    expect(shouldTrip(0, 0, 1, Number.MIN_VALUE)).toBe(false);
  });
});

describe('the breaker at the boundary', () => {
  it('opens on exactly the failure that reaches k/denominator of the history', () => {
    const scenario = fc.record({
      denominator: fc.constantFrom(10, 100, 1000),
      numerator: fc.integer({ min: 1, max: 1000 }),
      successes: fc.integer({ min: 0, max: 300 }),
      minimumFailureCount: fc.integer({ min: 1, max: 20 }),
    });
    fc.assert(
      fc.property(scenario, ({ denominator, numerator, successes, minimumFailureCount }) => {
        // Thresholds up to 0.9, so the boundary lies within 10 × 300 failures of the successes.
        const k = ((numerator - 1) % ((denominator * 9) / 10)) + 1;
        const breaker = new CircuitBreaker(
          { failureRateThreshold: k / denominator, minimumFailureCount, maximumSampleCount: 65_536 },
          testEnvironment(new FakeClock()),
        );
        for (let i = 0; i < successes; i++) breaker.complete(breaker.tryAdmit(), CircuitOutcome.Success);
        // Trips at the first f with f >= minimum and f * denominator >= k * (successes + f).
        let expected = minimumFailureCount;
        while (expected * denominator < k * (successes + expected)) expected++;
        for (let f = 1; f < expected; f++) {
          breaker.complete(breaker.tryAdmit(), CircuitOutcome.Failure);
          expect(breaker.state).toBe('closed');
        }
        breaker.complete(breaker.tryAdmit(), CircuitOutcome.Failure);
        expect(breaker.state).toBe('open');
      }),
      propertySettings(300),
    );
  });
});
