// A small seeded PRNG (sfc32) for replayable tests: the seed comes from `SEED` or is drawn at
// random, and is printed once per test file so a failing run replays with `SEED=<n> npx vitest …`.
import { randomInt } from 'node:crypto';

export interface SeededRandom {
  /** The 32-bit seed this generator started from. */
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform 32-bit unsigned integer. */
  uint32(): number;
  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** A uniformly chosen element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** `n` random bytes. */
  bytes(n: number): Buffer;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent generator seeded from this one, for a sub-task that must not shift the rest. */
  fork(): SeededRandom;
}

let announced = false;

/**
 * The seed for this test file: `SEED` from the environment (a decimal 32-bit unsigned integer), or
 * a random one. Printed the first time it is chosen in a file (each vitest file loads this module
 * afresh), so every run's output says how to replay it.
 */
export function testSeed(): number {
  const fromEnv = process.env.SEED;
  const seed = fromEnv === undefined || fromEnv === '' ? randomInt(0, 2 ** 32) : parseSeed(fromEnv);
  if (!announced) {
    announced = true;
    console.log(`SEED=${seed} (replay: SEED=${seed} npx vitest run <this file>)`);
  }
  return seed;
}

/** A generator from `seed`, or from `testSeed()` when omitted. */
export function seededRandom(seed: number = testSeed()): SeededRandom {
  return new Sfc32(seed >>> 0);
}

function parseSeed(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value >= 2 ** 32) {
    throw new Error(`SEED must be an integer from 0 to ${2 ** 32 - 1}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** sfc32 (Chris Doty-Humphrey's Small Fast Counting generator), state expanded by splitmix32. */
class Sfc32 implements SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(readonly seed: number) {
    let s = seed;
    const splitmix = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = splitmix();
    this.b = splitmix();
    this.c = splitmix();
    // Discard the first outputs, whose bits still mirror the seed closely.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.uint32() / 2 ** 32;
  }

  int(min: number, max: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max) {
      throw new RangeError(`int(min, max) needs safe integers with min <= max, got ${min}, ${max}`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() needs a non-empty array');
    return items[this.int(0, items.length - 1)]!;
  }

  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i += 4) {
      const word = this.uint32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (word >>> (8 * j)) & 0xff;
    }
    return out;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const copy = items.slice();
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  }

  fork(): SeededRandom {
    return new Sfc32(this.uint32());
  }
}
