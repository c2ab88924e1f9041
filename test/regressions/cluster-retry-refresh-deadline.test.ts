// Found by the deterministic simulation (issue 16, Cluster world: `npm run simulate -- --seed 390
// --mode cluster`, also seed 148): a retry whose slot owner was lost (no connection, circuit open)
// waited for a topology read before it was sent (seed 000 "Retries": ask the other primaries for
// the owner first) with no deadline: a read that took a `connectTimeout` per node asked held the
// caller far past its `acquireTimeout`. The wait now runs on the retry's acquire deadline, which
// the send after it keeps. Replayed here in the simulated world, whose clock makes the slow read.
import { describe, expect, it } from 'vitest';
import { runSeed } from '../sim/run.js';

describe('a Cluster retry waiting for a topology read', () => {
  it.each([390, 148])('settles by its deadline (seed %i)', async (seed) => {
    const result = await runSeed(seed, { mode: 'cluster' });
    expect(result.violations).toEqual([]);
  });
});
