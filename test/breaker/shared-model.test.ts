// The model-based breaker test (model.test.ts) run against a circuit of a SharedCircuitRegistry
// from one thread: the same commands, the same reference model, so the shared circuit must give
// the single-thread circuit's results command by command (issue 15).
import { describe, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { assertAgreesWithModel, MODEL_RUNS, MODEL_TIMEOUT_MS } from './model-run.js';

describe('SharedCircuit against the reference model, from one thread', () => {
  it(
    `agrees with the model after every command (${MODEL_RUNS} runs)`,
    () =>
      assertAgreesWithModel((options, clock, probeTimeout) => {
        const registry = new SharedCircuitRegistry({ ...options, maxEndpoints: 1, probeTimeout }, clock);
        // Through attach(), as a worker would: the options come from the buffer.
        return SharedCircuitRegistry.attach(registry.buffer, clock).circuit('redis-1:6379');
      }, true),
    MODEL_TIMEOUT_MS,
  );
});
