// Model-based test of the breaker (BREAKER.md "Testing it"): fast-check command sequences from the
// user-facing kit (`respire/breaker/testing`) run against its naive reference model (an outcome log
// filtered by age and count, an exact decimal threshold), checking every invariant after every
// command. Replay a failure with SEED=… FC_PATH=….
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/breaker/index.js';
import { breakerCoverage, breakerModel, fakeClock } from '../../src/breaker/testing/index.js';
import { optionsAndCommands } from './model-options.js';
import { propertySettings } from './support.js';

/** 5,000 in CI; `BREAKER_MODEL_RUNS=100000` for a deeper local search. */
const RUNS = Number(process.env.BREAKER_MODEL_RUNS ?? 5_000);

describe('CircuitBreaker against the reference model', () => {
  it(
    `agrees with the model after every command (${RUNS} runs)`,
    () => {
      fc.assert(
        fc.property(optionsAndCommands, ([{ seed, options }, commands]) => {
          const clock = fakeClock({ seed });
          const breaker = new CircuitBreaker(options, clock);
          fc.modelRun(() => ({ model: breakerModel(options, { seed }), real: { breaker, clock } }), commands);
        }),
        propertySettings(RUNS),
      );
      // The runs must actually reach every situation the invariants are about.
      for (const [situation, count] of Object.entries(breakerCoverage)) {
        expect({ situation, reached: count >= 100 }).toEqual({ situation, reached: true });
      }
    },
    Math.max(30_000, RUNS * 5),
  ); // about 1 ms a run on a loaded 2-core machine; deep runs need longer
});
