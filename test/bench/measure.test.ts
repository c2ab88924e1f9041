// The timing loop: every contender runs in every round, in rotating order, and the median is kept.
import { describe, expect, it } from 'vitest';
import { measureInterleaved, measureOptions, median } from '../../bench/measure.js';

describe('median', () => {
  it('takes the middle value, or the mean of the two middle values', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('measureInterleaved', () => {
  it('alternates contenders round by round and counts every pass', () => {
    const order: string[] = [];
    const counts = { a: 0, b: 0 };
    const make = (name: 'a' | 'b') => ({
      name,
      pass() {
        counts[name]++;
        order.push(name);
      },
    });
    // With no time to fill, every run is exactly one pass, so `order` is the order of the runs.
    const measured = measureInterleaved([make('a'), make('b')], { warmupMs: 0, rounds: 3, roundMs: 0 });
    // Warm-up a then b; the rounds start with a, b, a in turn.
    expect(order).toEqual(['a', 'b', 'a', 'b', 'b', 'a', 'a', 'b']);
    expect(measured.map((m) => m.name)).toEqual(['a', 'b']);
    expect(measured[0]!.passes).toBe(counts.a);
    expect(measured[1]!.passes).toBe(counts.b);
    expect(measured.every((m) => m.passesPerSecond > 0)).toBe(true);
  });

  it('runs a slow contender at least once per round', () => {
    let passes = 0;
    const [measured] = measureInterleaved([{ name: 'slow', pass: () => void passes++ }], {
      warmupMs: 0,
      rounds: 5,
      roundMs: 0,
    });
    expect(passes).toBe(6);
    expect(measured!.passes).toBe(6);
  });

  it('keeps --quick far shorter than a full run', () => {
    const total = (quick: boolean) => {
      const options = measureOptions(quick);
      return options.warmupMs + options.rounds * options.roundMs;
    };
    expect(total(true) * 10).toBeLessThan(total(false));
    expect(measureOptions(false).rounds % 2).toBe(1);
  });
});
