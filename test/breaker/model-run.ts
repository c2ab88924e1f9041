// The project's model-based breaker runs (model.test.ts, and shared-model.test.ts for the shared
// circuit): the options they draw, with the user-facing kit's command sequence built for each, and
// the property that every circuit must agree with the reference model after every command.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { RespireCircuitBreakerOptions } from '../../src/breaker/index.js';
import {
  type BreakerUnderTest,
  breakerCommands,
  breakerCoverage,
  breakerModel,
  type FakeClock,
  fakeClock,
} from '../../src/breaker/testing/index.js';
import { propertySettings } from './support.js';

/** 5,000 in CI; `BREAKER_MODEL_RUNS=100000` for a deeper local search. */
export const MODEL_RUNS = Number(process.env.BREAKER_MODEL_RUNS ?? 5_000);
/** About 1 ms a run on a loaded 2-core machine; deep runs need longer. */
export const MODEL_TIMEOUT_MS = Math.max(30_000, MODEL_RUNS * 5);

/** Small rings, windows and delays, so that a 40-command run reaches every state and boundary. */
export const modelOptions: fc.Arbitrary<{
  options: RespireCircuitBreakerOptions;
  seed: number;
  /** A shared registry's `probeTimeout`, for runs against a shared circuit. */
  probeTimeout: number;
}> = fc
  .record({
    maximumSampleCount: fc.integer({ min: 1, max: 12 }),
    minimumFailureCount: fc.integer({ min: 1, max: 4 }),
    denominator: fc.constantFrom(2, 3, 4, 10, 100, 1000),
    numerator: fc.integer({ min: 1, max: 1000 }),
    samplingWindow: fc.integer({ min: 1, max: 40 }),
    openDuration: fc.integer({ min: 1, max: 40 }),
    halfOpenProbeCount: fc.integer({ min: 1, max: 3 }),
    openDurationMultiplier: fc.constantFrom(1, 1.5, 2),
    maxOpenFactor: fc.constantFrom(1, 2.5, 4),
    openDurationJitter: fc.constantFrom(0, 0, 0.3, 1),
    seed: fc.integer(),
    probeTimeout: fc.integer({ min: 1, max: 40 }),
  })
  .map(({ numerator, denominator, maxOpenFactor, seed, probeTimeout, ...o }) => ({
    seed,
    probeTimeout,
    options: {
      ...o,
      failureRateThreshold: (((numerator - 1) % denominator) + 1) / denominator,
      minimumFailureCount: Math.min(o.minimumFailureCount, o.maximumSampleCount),
      maxOpenDuration: o.openDuration * maxOpenFactor,
    },
  }));

/**
 * Options with the command sequence built for them, as a user's test would build it; `shared`
 * runs also step the clock to the drawn `probeTimeout`.
 */
export function optionsAndCommands(shared: boolean) {
  return modelOptions.chain((drawn) =>
    fc.tuple(
      fc.constant(drawn),
      breakerCommands(fc, drawn.options, shared ? { probeTimeout: drawn.probeTimeout } : {}),
    ),
  );
}

/**
 * Runs MODEL_RUNS sequences against the circuits `make` builds on the run's fake clock, then checks
 * that the runs reached every situation the invariants are about. Replay with SEED=… FC_PATH=….
 * `shared`: the circuit is a shared registry's, made with the `probeTimeout` passed to `make`.
 */
export function assertAgreesWithModel(
  make: (options: RespireCircuitBreakerOptions, clock: FakeClock, probeTimeout: number) => BreakerUnderTest,
  shared = false,
): void {
  fc.assert(
    fc.property(optionsAndCommands(shared), ([{ seed, options, probeTimeout }, commands]) => {
      const clock = fakeClock({ seed });
      const breaker = make(options, clock, probeTimeout);
      const environment = shared ? { seed, probeTimeout } : { seed };
      fc.modelRun(() => ({ model: breakerModel(options, environment), real: { breaker, clock } }), commands);
    }),
    propertySettings(MODEL_RUNS),
  );
  for (const [situation, count] of Object.entries(breakerCoverage)) {
    expect({ situation, reached: count >= 100 }).toEqual({ situation, reached: true });
  }
}
