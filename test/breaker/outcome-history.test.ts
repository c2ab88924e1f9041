// The exact ring history (BREAKER.md 1-3, 5): expiry at exactly samplingWindow, eviction of every
// expired entry before each read and write, the count cap, wrap-around and O(1) clear.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutcomeHistory } from '../../src/breaker/outcome-history.js';

/** The history with time passed per call, written to the clock cell the history reads. */
function historyAt(maximumSampleCount: number, samplingWindow: number) {
  const clock = new Float64Array(1);
  const history = new OutcomeHistory(maximumSampleCount, samplingWindow, clock);
  return {
    history,
    record(now: number, failed: boolean): void {
      clock[0] = now;
      history.record(failed);
    },
    evictExpired(now: number): void {
      clock[0] = now;
      history.evictExpired();
    },
  };
}

function counts({ history }: { history: OutcomeHistory }) {
  return { failures: history.failures, total: history.total };
}

describe('OutcomeHistory', () => {
  it('keeps an outcome for samplingWindow - epsilon and drops it at samplingWindow', () => {
    const history = historyAt(8, 100);
    history.record(10, true);
    history.evictExpired(109.999);
    expect(counts(history)).toEqual({ failures: 1, total: 1 });
    history.evictExpired(110);
    expect(counts(history)).toEqual({ failures: 0, total: 0 });
  });

  it('evicts every expired entry in one step, not one per call', () => {
    const history = historyAt(8, 100);
    for (let t = 0; t < 5; t++) history.record(t, true);
    history.record(50, false);
    history.record(104, true); // t = 0..4 have all expired by now
    expect(counts(history)).toEqual({ failures: 1, total: 2 });
  });

  it('clears when even the newest entry has expired', () => {
    const history = historyAt(4, 100);
    for (let t = 0; t < 4; t++) history.record(t, t % 2 === 0);
    history.record(3_600_000, false);
    expect(counts(history)).toEqual({ failures: 0, total: 1 });
  });

  it('drops the oldest entry at the count cap and keeps the failure count exact across wrap-around', () => {
    const history = historyAt(3, 1_000);
    const pattern = [true, false, false, true, true, false, true, false, true, true];
    const log: boolean[] = [];
    pattern.forEach((failed, t) => {
      history.record(t, failed);
      log.push(failed);
      const kept = log.slice(-3);
      expect(counts(history)).toEqual({ failures: kept.filter(Boolean).length, total: kept.length });
    });
  });

  it('holds a single sample when maximumSampleCount is 1', () => {
    const history = historyAt(1, 1_000);
    history.record(0, true);
    history.record(1, false);
    expect(counts(history)).toEqual({ failures: 0, total: 1 });
  });

  it('clear forgets everything and the ring is reusable', () => {
    const history = historyAt(4, 1_000);
    for (let t = 0; t < 6; t++) history.record(t, true);
    history.history.clear();
    expect(counts(history)).toEqual({ failures: 0, total: 0 });
    history.record(7, false);
    history.evictExpired(8);
    expect(counts(history)).toEqual({ failures: 0, total: 1 });
  });

  // The batch a shared circuit's guard appends (shared/circuit-guard.ts): successes recorded
  // without the guard, each with its own time. It must leave what one record() per success, with
  // the clock advanced to each, leaves: the same counts now and at every later time.
  it('recordSuccesses(times) leaves what one record(false) per time leaves', () => {
    const step = fc.oneof(fc.constant(0), fc.constant(1), fc.integer({ min: 0, max: 12 }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.tuple(step, fc.boolean()), { maxLength: 20 }),
        fc.integer({ min: -5, max: 3 }),
        fc.array(step, { minLength: 1, maxLength: 30 }),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        (capacity, window, before, start, gaps, later) => {
          const one = { clock: new Float64Array(1), history: null as unknown as OutcomeHistory };
          const batch = { clock: new Float64Array(1), history: null as unknown as OutcomeHistory };
          for (const side of [one, batch]) side.history = new OutcomeHistory(capacity, window, side.clock);
          let now = 0;
          for (const [gap, failed] of before) {
            now += gap;
            for (const side of [one, batch]) {
              side.clock[0] = now;
              side.history.record(failed);
            }
          }
          // Non-decreasing times, the first possibly before the circuit's clock (then clamped).
          const times = new Float64Array(gaps.length + 2);
          let time = now + start;
          gaps.forEach((gap, i) => {
            time += gap;
            times[i + 2] = time;
          });
          for (let i = 0; i < gaps.length; i++) {
            one.clock[0] = Math.max(one.clock[0]!, times[i + 2]!);
            one.history.record(false);
          }
          batch.history.recordSuccesses(times, 2, gaps.length);
          const seen = (side: typeof one) => [side.clock[0], side.history.total, side.history.failures];
          expect(seen(batch)).toEqual(seen(one));
          let then = one.clock[0]!;
          for (const gap of later) {
            then += gap;
            for (const side of [one, batch]) {
              side.clock[0] = then;
              side.history.evictExpired();
            }
            expect(seen(batch)).toEqual(seen(one));
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
