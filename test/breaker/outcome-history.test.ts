// The exact ring history (BREAKER.md 1-3, 5): expiry at exactly samplingWindow, eviction of every
// expired entry before each read and write, the count cap, wrap-around and O(1) clear.
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
});
