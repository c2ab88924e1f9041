// Found by the deterministic simulation (issue 16, Sentinel world: `npm run simulate -- --seed 2038
// --mode sentinel`, also 2442, 4870, 5236, 7376): a switch moved the old primary's subscriptions
// to the new one but left them in the old subscriber's registry while that connection closed
// (after what it had in flight). The old primary, now a replica, hears every PUBLISH of the new
// one, so a message published then reached the listener twice. The old node now forgets them at
// the switch. Replayed in the simulated world, whose clock holds the old connection open long
// enough (a stalled server); a real Sentinel group closes it too fast to show the window.
import { describe, expect, it } from 'vitest';
import { runSeed } from '../sim/run.js';

describe('a Sentinel switch', () => {
  it.each([2038, 2442, 4870, 5236, 7376])('delivers each message once (seed %i)', async (seed) => {
    const result = await runSeed(seed, { mode: 'sentinel' });
    expect(result.violations).toEqual([]);
  });
});
