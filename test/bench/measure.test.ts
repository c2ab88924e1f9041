// The timing loop: every contender runs in every round, in rotating order, and the median is kept,
// whether the contenders run here or in worker processes.
import { describe, expect, it } from 'vitest';
import {
  asyncPasses,
  measureInterleaved,
  measureOptions,
  measureRounds,
  median,
  roundOrder,
  syncPasses,
} from '../../bench/measure.js';
import type { Round } from '../../bench/suite.js';

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

describe('roundOrder', () => {
  it('runs every contender once a round and rotates who starts', () => {
    expect(roundOrder(3, 3)).toEqual([0, 1, 2, 1, 2, 0, 2, 0, 1]);
    expect(roundOrder(1, 2)).toEqual([0, 0]);
  });
});

describe('measureRounds', () => {
  it('warms every runner up, then times the rounds one runner at a time, and keeps the median', async () => {
    const calls: string[] = [];
    let running = 0;
    let overlapped = false;
    // Runner `a` does 10 passes a round in 10, 20, 30 … ms; `b` does 1 pass in 1 ms.
    const runner = (name: string, round: (call: number) => Round) => {
      let call = 0;
      return {
        name,
        async runFor(durationMs: number): Promise<Round> {
          calls.push(`${name}:${durationMs}`);
          overlapped ||= running > 0;
          running++;
          await new Promise((resolve) => setImmediate(resolve));
          running--;
          return round(call++);
        },
      };
    };
    const measured = await measureRounds(
      [
        runner('a', (call) => ({ passes: 10, elapsedMs: 10 * (call + 1) })),
        runner('b', () => ({ passes: 1, elapsedMs: 1 })),
      ],
      { warmupMs: 7, rounds: 3, roundMs: 5 },
    );
    expect(calls).toEqual(['a:7', 'b:7', 'a:5', 'b:5', 'b:5', 'a:5', 'a:5', 'b:5']);
    expect(overlapped).toBe(false);
    // a's rounds ran at 500, 333 and 250 passes/s (the warm-up is not a round); b's at 1000.
    expect(measured).toEqual([
      { name: 'a', passesPerSecond: 1000 / 3, passes: 40 },
      { name: 'b', passesPerSecond: 1000, passes: 4 },
    ]);
  });

  it('keeps the median CPU time per pass when every round reports one', async () => {
    const cpuMs = [0, 30, 10, 20];
    let call = 0;
    const [measured] = await measureRounds(
      [{ name: 'a', runFor: async () => ({ passes: 10, elapsedMs: 10, cpuMs: cpuMs[call++]! }) }],
      { warmupMs: 0, rounds: 3, roundMs: 0 },
    );
    // Rounds used 3, 1 and 2 ms a pass; the warm-up's 0 is not a round.
    expect(measured!.cpuMsPerPass).toBe(2);
    const [without] = await measureRounds(
      [{ name: 'b', runFor: async () => ({ passes: 1, elapsedMs: 1 }) }],
      {
        warmupMs: 0,
        rounds: 1,
        roundMs: 0,
      },
    );
    expect(without!.cpuMsPerPass).toBeUndefined();
  });
});

describe('syncPasses and asyncPasses', () => {
  it('run at least one pass and keep going until the duration is over', async () => {
    let syncCount = 0;
    const syncRound = syncPasses(() => void syncCount++)(0);
    expect(syncRound.passes).toBe(1);
    expect(syncCount).toBe(1);

    let asyncCount = 0;
    // Each pass yields once but takes no time of its own, so even a loaded machine fits two in 5 ms.
    const asyncRound = await asyncPasses(async () => {
      asyncCount++;
      await Promise.resolve();
    })(5);
    expect(asyncRound.passes).toBe(asyncCount);
    expect(asyncRound.passes).toBeGreaterThanOrEqual(2);
    expect(asyncRound.elapsedMs).toBeGreaterThanOrEqual(5);
  });
});
