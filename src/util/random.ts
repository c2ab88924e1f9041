// The one place that draws randomness (STYLE.md "Async, time, randomness"). Everything else
// receives a RandomSource, so tests replay with a seeded one.

/** Uniform numbers in [0, 1). */
export interface RandomSource {
  /** A number in [0, 1), as `Math.random()`. */
  random(): number;
}

export const systemRandom: RandomSource = { random: () => Math.random() };
