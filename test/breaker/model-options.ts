// The options the project's model-based breaker tests draw (model.test.ts, and the shared circuit's),
// with the user-facing kit's command sequence built for each.
import fc from 'fast-check';
import type { RespireCircuitBreakerOptions } from '../../src/breaker/index.js';
import { breakerCommands } from '../../src/breaker/testing/index.js';

/** Small rings, windows and delays, so that a 40-command run reaches every state and boundary. */
export const modelOptions: fc.Arbitrary<{ options: RespireCircuitBreakerOptions; seed: number }> = fc
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
  })
  .map(({ numerator, denominator, maxOpenFactor, seed, ...o }) => ({
    seed,
    options: {
      ...o,
      failureRateThreshold: (((numerator - 1) % denominator) + 1) / denominator,
      minimumFailureCount: Math.min(o.minimumFailureCount, o.maximumSampleCount),
      maxOpenDuration: o.openDuration * maxOpenFactor,
    },
  }));

/** Options with the command sequence built for them, as a user's test would build it. */
export const optionsAndCommands = modelOptions.chain((drawn) =>
  fc.tuple(fc.constant(drawn), breakerCommands(fc, drawn.options)),
);
