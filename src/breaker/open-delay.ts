// How long a circuit stays open after a trip: the fixed `openDuration` by default, or a delay that
// grows across consecutive trips, with optional jitter (BREAKER.md 18, seeds/001: 5 s to 60 s).
import type { RandomSource } from './environment.js';
import type { ResolvedCircuitBreakerOptions } from './options.js';

/** The options `openDelay` reads: the open duration and how it grows across trips. */
export type OpenDelayOptions = Pick<
  ResolvedCircuitBreakerOptions,
  'openDuration' | 'openDurationMultiplier' | 'maxOpenDuration' | 'openDurationJitter'
>;

/**
 * The open delay of the `consecutiveTrips`-th trip since the circuit last closed (1 for the first):
 * `min(maxOpenDuration, openDuration * openDurationMultiplier ** (consecutiveTrips - 1))`, then
 * shortened by up to `openDurationJitter` of itself. Jitter only ever shortens the delay, so the
 * cap holds; `random` is drawn only when jitter is on, and a value outside `[0, 1)` counts as 0.
 */
export function openDelay(consecutiveTrips: number, options: OpenDelayOptions, random: RandomSource): number {
  const grown = options.openDuration * options.openDurationMultiplier ** (consecutiveTrips - 1);
  const delay = Math.min(grown, options.maxOpenDuration);
  if (options.openDurationJitter === 0) return delay;
  const draw = random.random();
  const unit = draw >= 0 && draw < 1 ? draw : 0;
  return delay * (1 - options.openDurationJitter * unit);
}
