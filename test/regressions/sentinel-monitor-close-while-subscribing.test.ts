// Found by the deterministic simulation (issue 16, Sentinel world: `npm run simulate -- --seed 2065
// --mode sentinel`): close() while the sentinel event monitor's SUBSCRIBE awaited its confirmation
// left that connection open, PINGing its sentinel forever: stop() destroys only the connection
// already subscribed, and the confirmation then kept the new one. Replayed in the simulated world,
// whose clock puts close() between the SUBSCRIBE and its confirmation.
import { describe, expect, it } from 'vitest';
import { runSeed } from '../sim/run.js';

describe('the sentinel event monitor closed while it subscribes', () => {
  it('closes the connection it was subscribing on', async () => {
    const result = await runSeed(2065, { mode: 'sentinel' });
    expect(result.violations).toEqual([]);
  });
});
