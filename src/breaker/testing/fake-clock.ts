// A hand-driven clock and a seeded random source for breaker tests (API.md "Breaker test kit for
// users"): what a `CircuitBreaker` takes as its environment, so a test decides when time moves.

/** A clock that moves only when told, with a seeded random source for the open-delay jitter. */
export interface FakeClock {
  /** The current reading; may be set backwards, to exercise the breaker's clamp (BREAKER.md 4). */
  time: number;
  now(): number;
  /** Moves the clock by `ms` (negative moves it back). */
  advance(ms: number): void;
  /** Uniform in [0, 1), from `seed`: the same seed gives `breakerModel` the same draws. */
  random(): number;
}

/**
 * A fake clock starting at `time` (default 0), its random draws seeded by `seed` (default 1).
 * Pass it as the breaker's environment: `new CircuitBreaker(options, clock)`.
 */
export function fakeClock(options: { time?: number; seed?: number } = {}): FakeClock {
  // Arrow functions over `clock`, not methods over `this`: `{ now: clock.now }` or a destructured
  // `now` (as a client's or breaker's environment often is built) must read this clock too.
  const clock: FakeClock = {
    time: options.time ?? 0,
    now: () => clock.time,
    advance: (ms: number) => {
      clock.time += ms;
    },
    random: seededRandom(options.seed ?? 1),
  };
  return clock;
}

/** mulberry32: a small seeded generator, uniform in [0, 1). Deterministic, not for security. */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
