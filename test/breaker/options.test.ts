// Option validation (API.md "RespireCircuitBreakerOptions"): every option below, at and above its
// range, NaN, infinities and non-numbers, with the option, value and range named in the error.
import { describe, expect, it } from 'vitest';
import {
  CircuitBreaker,
  CircuitBreakerRegistry,
  DEFAULT_CIRCUIT_BREAKER_OPTIONS,
  type RespireCircuitBreakerOptions,
  validateCircuitBreakerOptions,
} from '../../src/breaker/index.js';
import { RespireConfigurationError } from '../../src/errors.js';

type Name = keyof RespireCircuitBreakerOptions;

function rejection(options: RespireCircuitBreakerOptions, prefix?: string): RespireConfigurationError {
  try {
    validateCircuitBreakerOptions(options, prefix);
  } catch (error) {
    expect(error).toBeInstanceOf(RespireConfigurationError);
    return error as RespireConfigurationError;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

function accepts(name: Name, value: number, extra: RespireCircuitBreakerOptions = {}): void {
  expect(validateCircuitBreakerOptions({ ...extra, [name]: value })[name]).toBe(value);
}

function rejects(
  name: Name,
  value: unknown,
  allowed: string,
  extra: RespireCircuitBreakerOptions = {},
): void {
  const error = rejection({ ...extra, [name]: value } as RespireCircuitBreakerOptions);
  expect(error.option).toBe(name);
  expect(Object.is(error.value, value)).toBe(true);
  expect(error.allowed).toBe(allowed);
  expect(error.message).toContain(name);
  expect(error.message).toContain(allowed);
}

const NOT_NUMBERS: unknown[] = ['1', null, true, {}, [1], 1n, () => 1];

/** Per option: accepted values (boundaries included), rejected values, and the range in words. */
const CASES: { name: Name; accepted: number[]; rejected: unknown[]; allowed: string }[] = [
  {
    name: 'failureRateThreshold',
    accepted: [Number.MIN_VALUE, 0.07, 0.5, 1],
    rejected: [0, -0.1, 1.0000001, 2, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    allowed: 'a number greater than 0, at most 1',
  },
  {
    name: 'minimumFailureCount',
    accepted: [1, 2, 1024],
    rejected: [0, -1, 1.5, 1025, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'an integer from 1 through maximumSampleCount (1024)',
  },
  {
    name: 'samplingWindow',
    accepted: [Number.MIN_VALUE, 0.5, 1, 30_000, Number.MAX_VALUE],
    rejected: [0, -1, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'a finite number greater than 0',
  },
  {
    name: 'maximumSampleCount',
    accepted: [5, 1024, 65_536],
    rejected: [0, -1, 4.5, 65_537, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'an integer from 1 through 65536',
  },
  {
    name: 'openDuration',
    accepted: [Number.MIN_VALUE, 1, 5_000],
    rejected: [0, -1, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'a finite number greater than 0',
  },
  {
    name: 'halfOpenProbeCount',
    accepted: [1, 2, 65_536],
    rejected: [0, -1, 1.5, 65_537, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'an integer from 1 through 65536',
  },
  {
    name: 'openDurationMultiplier',
    accepted: [1, 1.5, 2, 1e6],
    rejected: [0.999, 0, -2, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'a finite number of at least 1',
  },
  {
    name: 'maxOpenDuration',
    accepted: [5_000, 5_000.5, 60_000],
    rejected: [4_999.9, 0, -1, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'a finite number of at least openDuration (5000)',
  },
  {
    name: 'openDurationJitter',
    accepted: [0, 0.25, 1],
    rejected: [-0.01, 1.01, Number.NaN, Number.POSITIVE_INFINITY],
    allowed: 'a number from 0 through 1',
  },
];

/** API.md's defaults table, restated on purpose: DEFAULT_CIRCUIT_BREAKER_OPTIONS must match it. */
const DOCUMENTED_DEFAULTS = {
  failureRateThreshold: 0.5,
  minimumFailureCount: 5,
  samplingWindow: 30_000,
  maximumSampleCount: 1024,
  openDuration: 5_000,
  halfOpenProbeCount: 1,
  openDurationMultiplier: 1,
  maxOpenDuration: 5_000,
  openDurationJitter: 0,
};

describe('validateCircuitBreakerOptions', () => {
  it('fills in the documented defaults', () => {
    expect(validateCircuitBreakerOptions(undefined)).toEqual(DOCUMENTED_DEFAULTS);
    expect(validateCircuitBreakerOptions({})).toEqual(DEFAULT_CIRCUIT_BREAKER_OPTIONS);
    expect(Object.isFrozen(validateCircuitBreakerOptions({ openDuration: 7 }))).toBe(true);
  });

  for (const { name, accepted, rejected, allowed } of CASES) {
    describe(name, () => {
      it('accepts values in range, boundaries included', () => {
        for (const value of accepted) accepts(name, value);
      });

      it('rejects values out of range, NaN and infinities', () => {
        for (const value of rejected) rejects(name, value, allowed);
      });

      it('rejects non-numbers', () => {
        for (const value of NOT_NUMBERS) rejects(name, value, allowed);
      });

      it('treats undefined as the default', () => {
        expect(validateCircuitBreakerOptions({ [name]: undefined })[name]).toBe(
          DEFAULT_CIRCUIT_BREAKER_OPTIONS[name],
        );
      });
    });
  }

  it('bounds minimumFailureCount by the given maximumSampleCount', () => {
    accepts('minimumFailureCount', 10, { maximumSampleCount: 10 });
    rejects('minimumFailureCount', 11, 'an integer from 1 through maximumSampleCount (10)', {
      maximumSampleCount: 10,
    });
    rejects('minimumFailureCount', 5, 'an integer from 1 through maximumSampleCount (4)', {
      maximumSampleCount: 4,
    });
  });

  it('bounds maxOpenDuration by the given openDuration and defaults it to openDuration', () => {
    expect(validateCircuitBreakerOptions({ openDuration: 250 }).maxOpenDuration).toBe(250);
    accepts('maxOpenDuration', 250, { openDuration: 250 });
    rejects('maxOpenDuration', 249, 'a finite number of at least openDuration (250)', { openDuration: 250 });
  });

  it('prefixes the option path for callers such as the client', () => {
    const error = rejection({ openDuration: 0 }, 'circuitBreaker.');
    expect(error.option).toBe('circuitBreaker.openDuration');
    expect(error.message).toBe(
      'invalid option circuitBreaker.openDuration: 0; allowed: a finite number greater than 0',
    );
  });

  it('rejects options that are not an object', () => {
    for (const value of [null, 5, 'fast']) {
      const error = rejection(value as unknown as RespireCircuitBreakerOptions, 'circuitBreaker.');
      expect(error.option).toBe('circuitBreaker');
      expect(error.allowed).toBe('an object');
    }
    expect(rejection(null as unknown as RespireCircuitBreakerOptions).option).toBe('options');
  });

  it('is what the CircuitBreaker and registry constructors run', () => {
    expect(new CircuitBreaker().options).toEqual(DOCUMENTED_DEFAULTS);
    expect(new CircuitBreaker({}).options).toEqual(DOCUMENTED_DEFAULTS);
    expect(new CircuitBreakerRegistry().options).toEqual(DOCUMENTED_DEFAULTS);
    expect(() => new CircuitBreaker({ halfOpenProbeCount: 0 })).toThrow(RespireConfigurationError);
    expect(() => new CircuitBreakerRegistry({ samplingWindow: -1 })).toThrow(RespireConfigurationError);
    expect(() => new CircuitBreakerRegistry({}, { maxIdleHistories: -1 })).toThrow(RespireConfigurationError);
    expect(() => new CircuitBreakerRegistry({}, { maxIdleHistories: 1.5 })).toThrow(
      RespireConfigurationError,
    );
  });
});
