// A shared circuit's state word: one Int32 holding the state, the probes taken and the probe
// successes of a half-open round, and the generation, so that every decision about them is one
// Atomics.compareExchange (BREAKER.md 8-11 across threads).
//
// Bits, low to high: state (2: closed 0, open 1, half-open 2), taken = probes in flight + probe
// successes (c bits), successes (c bits), generation (the remaining 29 - 2c bits), where c is the
// bit length of `halfOpenProbeCount`. The sign bit stays 0. With the default of one probe the
// word keeps 27 bits of the generation; at the shared registry's limit of 255 probes, 13 bits. A
// command can stay in flight across thousands of trips (a blocking command), so tickets carry the
// whole generation (31 bits): the word's bits completed from the slot's recent whole generation,
// a cell every transition's maker updates after its exchange (`wholeGeneration`).
import type { CircuitState } from '../circuit-state.js';

export const CLOSED = 0;
export const OPEN = 1;
export const HALF_OPEN = 2;

/** Most half-open probes a shared circuit may run, so that the generation keeps 13 bits or more. */
export const MAX_SHARED_PROBES = 255;

/** Whole generations count modulo 2^31, so that a ticket's stays a small non-negative integer. */
export const WHOLE_GENERATION_MASK = 0x7fffffff;

const NAMES: readonly CircuitState[] = ['closed', 'open', 'half_open'];

export class StateWordLayout {
  /** Added to a word to take one more probe. */
  readonly takenOne = 4;
  /** Added to a word to count one more probe success. */
  readonly successOne: number;
  private readonly countMask: number;
  private readonly successShift: number;
  readonly generationShift: number;
  readonly generationMask: number;

  constructor(halfOpenProbeCount: number) {
    const bits = 32 - Math.clz32(halfOpenProbeCount);
    this.countMask = (1 << bits) - 1;
    this.successShift = 2 + bits;
    this.successOne = 1 << this.successShift;
    this.generationShift = 2 + 2 * bits;
    this.generationMask = 2 ** (31 - this.generationShift) - 1;
  }

  word(state: number, generation: number, taken = 0, successes = 0): number {
    return (
      ((generation & this.generationMask) << this.generationShift) |
      (successes << this.successShift) |
      (taken << 2) |
      state
    );
  }

  /** The generation after the word's: generations only need to differ from recent ones. */
  nextGeneration(word: number): number {
    return ((word >>> this.generationShift) + 1) & this.generationMask;
  }

  generation(word: number): number {
    return word >>> this.generationShift;
  }

  /**
   * The whole generation (31 bits) of `word`: the one nearest `recent` (the slot's whole generation
   * cell) with the word's bits. Right while the cell lags or leads the word by fewer than half the
   * word's generations (4,096 at 255 probes): that many transitions would have to happen between
   * a thread's exchange and its update of the cell, or between two adjacent loads.
   */
  wholeGeneration(word: number, recent: number): number {
    const mask = this.generationMask;
    let ahead = ((word >>> this.generationShift) - recent) & mask;
    if (ahead > mask >>> 1) ahead -= mask + 1;
    return (recent + ahead) & WHOLE_GENERATION_MASK;
  }

  taken(word: number): number {
    return (word >>> 2) & this.countMask;
  }

  successes(word: number): number {
    return (word >>> this.successShift) & this.countMask;
  }
}

export function stateOf(word: number): number {
  return word & 3;
}

export function stateName(word: number): CircuitState {
  return NAMES[word & 3]!;
}
