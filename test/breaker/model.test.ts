// Model-based test of the breaker (BREAKER.md "Testing it"): fast-check command sequences from the
// user-facing kit (`respire/breaker/testing`) run against its naive reference model (an outcome log
// filtered by age and count, an exact decimal threshold), checking every invariant after every
// command. Replay a failure with SEED=… FC_PATH=…; `BREAKER_MODEL_RUNS=100000` searches deeper.
import { describe, it } from 'vitest';
import { CircuitBreaker } from '../../src/breaker/index.js';
import { assertAgreesWithModel, MODEL_RUNS, MODEL_TIMEOUT_MS } from './model-run.js';

describe('CircuitBreaker against the reference model', () => {
  it(
    `agrees with the model after every command (${MODEL_RUNS} runs)`,
    () => assertAgreesWithModel((options, clock) => new CircuitBreaker(options, clock)),
    MODEL_TIMEOUT_MS,
  );
});
