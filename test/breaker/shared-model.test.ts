// The model-based breaker test (model.test.ts) run against a circuit of a SharedCircuitRegistry
// from one thread: the same commands, the same reference model, so the shared circuit must give
// the single-thread circuit's results command by command (issue 15).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { breakerCoverage, breakerModel, fakeClock } from '../../src/breaker/testing/index.js';
import { optionsAndCommands } from './model-options.js';
import { propertySettings } from './support.js';

const RUNS = Number(process.env.BREAKER_MODEL_RUNS ?? 5_000);

describe('SharedCircuit against the reference model, from one thread', () => {
  it(
    `agrees with the model after every command (${RUNS} runs)`,
    () => {
      fc.assert(
        fc.property(optionsAndCommands, ([{ seed, options }, commands]) => {
          const clock = fakeClock({ seed });
          const registry = new SharedCircuitRegistry({ ...options, maxEndpoints: 1 }, clock);
          // Through attach(), as a worker would: the options come from the buffer.
          const breaker = SharedCircuitRegistry.attach(registry.buffer, clock).circuit('redis-1:6379');
          fc.modelRun(() => ({ model: breakerModel(options, { seed }), real: { breaker, clock } }), commands);
        }),
        propertySettings(RUNS),
      );
      for (const [situation, count] of Object.entries(breakerCoverage)) {
        expect({ situation, reached: count >= 100 }).toEqual({ situation, reached: true });
      }
    },
    Math.max(30_000, RUNS * 5),
  );
});
