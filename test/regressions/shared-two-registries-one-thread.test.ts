// Issue 15 hunt: two SharedCircuitRegistry buffers with different options, both attached in one
// thread (each view also made there), the same endpoint key in each. Nothing a thread keeps for
// its registries (guard tokens, the deadline's conversion cells, holder records) may leak from one
// to the other: each trips by its own options, fills its own table, and lets go on its own.
import { describe, expect, it } from 'vitest';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireConfigurationError } from '../../src/errors.js';

describe('two shared registries attached in one thread', () => {
  it('keeps their circuits, options and tables apart', () => {
    const one = new SharedCircuitRegistry({ minimumFailureCount: 1, openDuration: 1_000, maxEndpoints: 1 });
    const two = new SharedCircuitRegistry({
      minimumFailureCount: 3,
      openDuration: 9_000,
      maximumSampleCount: 10,
      maxEndpoints: 2,
      maxIdleHistories: 0,
    });
    const oneView = SharedCircuitRegistry.attach(one.buffer);
    const twoView = SharedCircuitRegistry.attach(two.buffer);
    const a = oneView.circuit('redis:6379');
    const b = twoView.circuit('redis:6379');
    a.complete(a.tryAdmit(), CircuitOutcome.Failure);
    b.complete(b.tryAdmit(), CircuitOutcome.Failure);
    expect(one.circuit('redis:6379').state).toBe('open');
    expect(two.circuit('redis:6379').snapshot()).toMatchObject({ state: 'closed', failures: 1, total: 1 });
    expect(() => oneView.circuit('other:6379')).toThrow(RespireConfigurationError);
    twoView.circuit('other:6379');
    expect(two.size).toBe(2);
    // The second registry's holds end on their own: its table empties, the first's stays full.
    twoView.detach();
    two.detach();
    expect(two.size).toBe(0);
    expect(one.size).toBe(1);
    expect(() => one.circuit('third:6379')).toThrow(RespireConfigurationError);
  });
});
