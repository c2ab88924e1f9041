// Delay between reconnect attempts (API.md `reconnect`): exponential with full jitter by default,
// so a fleet of clients does not reconnect in lockstep after an outage.
import type { RandomSource } from '../util/random.js';

/** Returns the delay in ms before attempt `attempt` (1 = first retry), or false to give up. */
export type ReconnectFunction = (attempt: number, cause: Error) => number | false;

export interface ExponentialReconnect {
  /** Delay ceiling of the first attempt, ms. Default 50. */
  minDelay?: number;
  /** Largest delay ceiling, ms. Default 5000. */
  maxDelay?: number;
  /** Attempts before giving up. Default Infinity (keep trying). */
  maxAttempts?: number;
}

/** `false` never reconnects; a function decides each delay itself. */
export type ReconnectOption = ExponentialReconnect | ReconnectFunction | false;

export const DEFAULT_RECONNECT = { minDelay: 50, maxDelay: 5000, maxAttempts: Number.POSITIVE_INFINITY };

/** Full jitter: a uniform delay in [0, min(maxDelay, minDelay * 2^(attempt-1))]. */
export function exponentialReconnect(
  options: Required<ExponentialReconnect>,
  randomSource: RandomSource,
): ReconnectFunction {
  return (attempt) => {
    if (attempt > options.maxAttempts) return false;
    const ceiling = Math.min(options.maxDelay, options.minDelay * 2 ** Math.min(attempt - 1, 30));
    return Math.round(randomSource.random() * ceiling);
  };
}
