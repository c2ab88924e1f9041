// The seeded PRNG: replays from a seed, stays in range, reads and validates SEED.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seededRandom, testSeed } from './seeded-random.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('seededRandom', () => {
  it('replays the same sequence from the same seed, and a known one for seed 1', () => {
    const a = seededRandom(1);
    const b = seededRandom(1);
    const first = Array.from({ length: 5 }, () => a.uint32());
    expect(Array.from({ length: 5 }, () => b.uint32())).toEqual(first);
    // Pinned so a change to the generator (which would break recorded replays) is noticed.
    expect(first).toEqual([792534090, 3215351813, 160231488, 1151041103, 1990438114]);
    expect(seededRandom(2).uint32()).not.toBe(first[0]);
  });

  it('draws floats in [0, 1) with a plausible mean', () => {
    const random = seededRandom(7);
    let sum = 0;
    for (let i = 0; i < 20_000; i++) {
      const x = random.next();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(Math.abs(sum / 20_000 - 0.5)).toBeLessThan(0.01);
  });

  it('draws integers in [min, max], reaching both ends', () => {
    const random = seededRandom(3);
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) seen.add(random.int(-2, 3));
    expect([...seen].sort((x, y) => x - y)).toEqual([-2, -1, 0, 1, 2, 3]);
    expect(random.int(5, 5)).toBe(5);
    expect(() => random.int(3, 2)).toThrow(RangeError);
    expect(() => random.int(0.5, 2)).toThrow(RangeError);
  });

  it('picks, shuffles, makes bytes and forks deterministically', () => {
    const run = (seed: number) => {
      const random = seededRandom(seed);
      return {
        picks: Array.from({ length: 10 }, () => random.pick(['a', 'b', 'c'])),
        shuffled: random.shuffle([1, 2, 3, 4, 5, 6, 7, 8]),
        bytes: random.bytes(7),
        forked: random.fork().uint32(),
        chance: random.chance(1),
      };
    };
    const once = run(42);
    expect(run(42)).toEqual(once);
    expect(once.shuffled.slice().sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(once.bytes.length).toBe(7);
    expect(new Set(once.picks).size).toBeGreaterThan(1);
    expect(once.chance).toBe(true);
    expect(() => seededRandom(1).pick([])).toThrow(RangeError);
  });
});

describe('testSeed', () => {
  it('takes SEED from the environment, so a run replays', () => {
    vi.stubEnv('SEED', '12345');
    expect(testSeed()).toBe(12345);
    expect(seededRandom().uint32()).toBe(seededRandom(12345).uint32());
  });

  it('draws a fresh 32-bit seed without SEED', () => {
    vi.stubEnv('SEED', '');
    const seeds = new Set(Array.from({ length: 4 }, () => testSeed()));
    for (const seed of seeds) expect(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32).toBe(true);
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('rejects a SEED that is not a 32-bit unsigned integer', () => {
    for (const bad of ['-1', '1.5', 'abc', String(2 ** 32)]) {
      vi.stubEnv('SEED', bad);
      expect(() => testSeed()).toThrow(/SEED must be an integer/);
    }
  });
});
