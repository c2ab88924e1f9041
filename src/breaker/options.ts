// Circuit-breaker options: their defaults, allowed ranges and validation (API.md
// "RespireCircuitBreakerOptions"; BREAKER.md 18 for the growing open delay).
import { RespireConfigurationError } from '../errors.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';

/** Options of one endpoint's circuit. Durations are milliseconds. Every option is optional. */
export interface RespireCircuitBreakerOptions {
  /** Failure fraction that opens the circuit. Default 0.5; greater than 0, at most 1. */
  failureRateThreshold?: number;
  /** Failures required before the circuit can open. Default 5; an integer, 1 through `maximumSampleCount`. */
  minimumFailureCount?: number;
  /** Maximum age of the outcomes that count. Default 30000; finite, greater than 0. */
  samplingWindow?: number;
  /** Most recent outcomes kept. Default 1024; an integer, 1 through 65536. */
  maximumSampleCount?: number;
  /** Delay before an open circuit admits recovery probes. Default 5000; finite, greater than 0. */
  openDuration?: number;
  /** Concurrent recovery probes, and the successes needed to close. Default 1; an integer, 1 through 65536. */
  halfOpenProbeCount?: number;
  /**
   * Growth of the open delay per consecutive trip without a close in between (BREAKER.md 18): the
   * n-th such trip waits `openDuration * openDurationMultiplier ** (n - 1)`, capped by
   * `maxOpenDuration`. Default 1 (no growth); finite, at least 1. Growth also needs `maxOpenDuration`.
   */
  openDurationMultiplier?: number;
  /** Cap of the growing open delay. Default `openDuration`; finite, at least `openDuration`. */
  maxOpenDuration?: number;
  /**
   * Fraction of each open delay that is randomised, so that many clients do not probe in lockstep:
   * the delay is multiplied by `1 - openDurationJitter * random()`, which never exceeds the cap.
   * Default 0 (no jitter); 0 through 1.
   */
  openDurationJitter?: number;
}

/** Every option, validated, with defaults filled in. */
export type ResolvedCircuitBreakerOptions = Readonly<Required<RespireCircuitBreakerOptions>>;

/** The defaults of API.md; `maxOpenDuration` defaults to the effective `openDuration`. */
export const DEFAULT_CIRCUIT_BREAKER_OPTIONS: ResolvedCircuitBreakerOptions = Object.freeze({
  failureRateThreshold: 0.5,
  minimumFailureCount: 5,
  samplingWindow: 30_000,
  maximumSampleCount: 1024,
  openDuration: 5_000,
  halfOpenProbeCount: 1,
  openDurationMultiplier: 1,
  maxOpenDuration: 5_000,
  openDurationJitter: 0,
});

/** Every option name; any other name is refused as mistyped (issue 10). */
const OPTION_NAMES = Object.keys(DEFAULT_CIRCUIT_BREAKER_OPTIONS);

/** Upper bound of `maximumSampleCount` and `halfOpenProbeCount`. */
export const MAXIMUM_COUNT_OPTION = 65_536;

/**
 * Validates `options` and fills in defaults. `prefix` is prepended to the option name in the
 * error (the client passes `'circuitBreaker.'`). `undefined` means "use the default".
 * @throws RespireConfigurationError naming the option, the value and the allowed range, or naming
 *   an unknown option (with the closest known name when it looks mistyped).
 */
export function validateCircuitBreakerOptions(
  options: RespireCircuitBreakerOptions | undefined,
  prefix = '',
): ResolvedCircuitBreakerOptions {
  if (options === undefined) return DEFAULT_CIRCUIT_BREAKER_OPTIONS;
  if (options === null || typeof options !== 'object') {
    throw new RespireConfigurationError(
      prefix === '' ? 'options' : prefix.replace(/\.$/, ''),
      options,
      'an object',
    );
  }
  rejectUnknownOptions(options, OPTION_NAMES, prefix);
  const d = DEFAULT_CIRCUIT_BREAKER_OPTIONS;
  const check = new OptionChecker(options, prefix);
  const maximumSampleCount = check.integer(
    'maximumSampleCount',
    d.maximumSampleCount,
    1,
    MAXIMUM_COUNT_OPTION,
  );
  const openDuration = check.positive('openDuration', d.openDuration);
  return Object.freeze({
    failureRateThreshold: check.fraction('failureRateThreshold', d.failureRateThreshold),
    minimumFailureCount: check.integer(
      'minimumFailureCount',
      d.minimumFailureCount,
      1,
      maximumSampleCount,
      `maximumSampleCount (${maximumSampleCount})`,
    ),
    samplingWindow: check.positive('samplingWindow', d.samplingWindow),
    maximumSampleCount,
    openDuration,
    halfOpenProbeCount: check.integer('halfOpenProbeCount', d.halfOpenProbeCount, 1, MAXIMUM_COUNT_OPTION),
    openDurationMultiplier: check.atLeast('openDurationMultiplier', d.openDurationMultiplier, 1, '1'),
    maxOpenDuration: check.atLeast(
      'maxOpenDuration',
      openDuration,
      openDuration,
      `openDuration (${openDuration})`,
    ),
    openDurationJitter: check.unitInterval('openDurationJitter', d.openDurationJitter),
  });
}

/** Reads one option at a time and throws the configuration error for the first bad one. */
class OptionChecker {
  constructor(
    private readonly options: RespireCircuitBreakerOptions,
    private readonly prefix: string,
  ) {}

  /** A number `> 0` and `<= 1`. */
  fraction(name: keyof RespireCircuitBreakerOptions, fallback: number): number {
    return this.read(name, fallback, (v) => v > 0 && v <= 1, 'a number greater than 0, at most 1');
  }

  /** A number `>= 0` and `<= 1`. */
  unitInterval(name: keyof RespireCircuitBreakerOptions, fallback: number): number {
    return this.read(name, fallback, (v) => v >= 0 && v <= 1, 'a number from 0 through 1');
  }

  /** A finite number of milliseconds `> 0`. */
  positive(name: keyof RespireCircuitBreakerOptions, fallback: number): number {
    return this.read(name, fallback, (v) => Number.isFinite(v) && v > 0, 'a finite number greater than 0');
  }

  /** A finite number `>= minimum`. */
  atLeast(
    name: keyof RespireCircuitBreakerOptions,
    fallback: number,
    minimum: number,
    minimumText: string,
  ): number {
    const allowed = `a finite number of at least ${minimumText}`;
    return this.read(name, fallback, (v) => Number.isFinite(v) && v >= minimum, allowed);
  }

  /** An integer from `minimum` through `maximum`. */
  integer(
    name: keyof RespireCircuitBreakerOptions,
    fallback: number,
    minimum: number,
    maximum: number,
    maximumText = String(maximum),
  ): number {
    const allowed = `an integer from ${minimum} through ${maximumText}`;
    return this.read(name, fallback, (v) => Number.isInteger(v) && v >= minimum && v <= maximum, allowed);
  }

  /** The option's value, or `fallback` when it is `undefined`; NaN fails every range test. */
  private read(
    name: keyof RespireCircuitBreakerOptions,
    fallback: number,
    valid: (value: number) => boolean,
    allowed: string,
  ): number {
    const value: unknown = this.options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || Number.isNaN(value) || !valid(value)) {
      throw new RespireConfigurationError(this.prefix + name, value, allowed);
    }
    return value;
  }
}
