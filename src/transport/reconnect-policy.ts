// Delay between reconnect attempts (API.md `reconnect`): exponential with full jitter by default,
// so a fleet of clients does not reconnect in lockstep after an outage.
import { RespireConfigurationError } from '../errors.js';
import { type RandomSource, systemRandom } from '../util/random.js';

/**
 * Returns the delay in ms before attempt `attempt` (1 = first retry), from 0 through
 * MAX_RECONNECT_DELAY_MS, or false to give up. One that throws or returns anything else is a
 * policy error (`askReconnectPolicy`).
 */
export type ReconnectFunction = (attempt: number, cause: Error) => number | false;

/** The default reconnect policy's settings: exponential delays with full jitter. */
export interface ExponentialReconnect {
  /** Delay ceiling of the first attempt, ms (0: the first retry is immediate, later ones back off from 1 ms). Default 50. */
  minDelay?: number;
  /** Largest delay ceiling, ms. Default 5000. */
  maxDelay?: number;
  /** Attempts before giving up. Default Infinity (keep trying). */
  maxAttempts?: number;
}

/** `false` never reconnects; a function decides each delay itself. */
export type ReconnectOption = ExponentialReconnect | ReconnectFunction | false;

export const DEFAULT_RECONNECT = { minDelay: 50, maxDelay: 5000, maxAttempts: Number.POSITIVE_INFINITY };

/**
 * Full jitter: a uniform delay in [0, min(maxDelay, minDelay * 2^(attempt-1))]. A minDelay of 0
 * makes only the first retry immediate: later ceilings double from 1 ms, or a dead node would be
 * reconnected to in a busy loop (0 * 2^n stays 0) for as long as it is down.
 */
export function exponentialReconnect(
  options: Required<ExponentialReconnect>,
  randomSource: RandomSource,
): ReconnectFunction {
  const base = Math.max(options.minDelay, 1);
  return (attempt) => {
    if (attempt > options.maxAttempts) return false;
    const grown = attempt === 1 ? options.minDelay : base * 2 ** Math.min(attempt - 1, 30);
    const ceiling = Math.min(options.maxDelay, grown);
    return Math.round(randomSource.random() * ceiling);
  };
}

/** The longest delay Node's timers hold; a longer one (or NaN) fires at once with a warning. */
export const MAX_RECONNECT_DELAY_MS = 2 ** 31 - 1;

/**
 * Asks the caller's `policy` for the delay before `attempt`, and never throws: it runs from a
 * socket's close handler, where a throw would crash the process and the channel would never
 * reconnect (issue 19 #5). A policy that throws, or returns anything but false or a delay from 0
 * through MAX_RECONNECT_DELAY_MS, is told to `onPolicyError` as a RespireConfigurationError
 * (option `reconnect`; `value` what it returned or threw, and `cause` what it threw), and the
 * default policy decides this attempt. Each attempt asks the policy again.
 */
export function askReconnectPolicy(
  policy: ReconnectFunction,
  attempt: number,
  cause: Error,
  onPolicyError: (error: RespireConfigurationError) => void,
  random: RandomSource = systemRandom,
): number | false {
  let error: RespireConfigurationError;
  try {
    const delay: unknown = policy(attempt, cause);
    if (delay === false || isDelay(delay)) return delay;
    error = new RespireConfigurationError('reconnect', delay, POLICY_ANSWERS);
  } catch (thrown) {
    error = new RespireConfigurationError('reconnect', thrown, POLICY_ANSWERS, { cause: thrown });
  }
  onPolicyError(error);
  return exponentialReconnect(DEFAULT_RECONNECT, random)(attempt, cause);
}

const POLICY_ANSWERS = `a function that returns false or a delay in ms from 0 through ${MAX_RECONNECT_DELAY_MS}, without throwing`;

function isDelay(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= MAX_RECONNECT_DELAY_MS;
}
