// breakerCommands(fc) is built with the caller's own fast-check, of whatever major version, but it
// passed `{ weight, arbitrary }` records to fc.oneof, which fast-check 2 does not take ("Unexpected
// value received: not an instance of Arbitrary"). The weights are now repetitions. fast-check 2's
// oneof is stood in for by the project's fast-check with a oneof that takes arbitraries only (as
// fast-check 2.25's does), so the package needs no second fast-check.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/breaker/index.js';
import { breakerCommands, breakerModel, fakeClock } from '../../src/breaker/testing/index.js';

const fastCheck2: typeof fc = {
  ...fc,
  oneof: ((...arbitraries: unknown[]) => {
    for (const arbitrary of arbitraries) {
      if (!(arbitrary instanceof fc.Arbitrary))
        throw new Error('Unexpected value received: not an instance of Arbitrary');
    }
    return fc.oneof(...(arbitraries as fc.Arbitrary<unknown>[]));
  }) as typeof fc.oneof,
};

describe('breakerCommands with a fast-check whose oneof takes arbitraries only', () => {
  it('builds commands that run against the model', () => {
    const options = { minimumFailureCount: 3, openDuration: 2_000 };
    let runs = 0;
    fc.assert(
      fc.property(breakerCommands(fastCheck2, options), (commands) => {
        const clock = fakeClock();
        const breaker = new CircuitBreaker(options, clock);
        fc.modelRun(() => ({ model: breakerModel(options), real: { breaker, clock } }), commands);
        runs++;
      }),
      { numRuns: 50, seed: 15 },
    );
    expect(runs).toBe(50);
  });
});
