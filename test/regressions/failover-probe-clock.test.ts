// The failover group's health probes ran on the global setInterval and setTimeout, not on the
// members' clock (util/timers.ts): a simulated clock never ran a probe nor its timeout. They now
// start through startTimer on the clock the members' options give.
import { describe, expect, it } from 'vitest';
import { recordSwitches, useGroups } from '../failover/support.js';
import { parkedClock } from '../kit/parked-clock.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

const HOUR = 3_600_000;

describe('failover health probes', () => {
  it("run every interval on the members' clock, and time out on it", async () => {
    const clock = parkedClock(HOUR);
    const probed: string[] = [];
    const group = await groups.connect(
      { east: east.port, west: west.port },
      {
        member: { clock },
        healthCheck: {
          interval: HOUR,
          timeout: 2 * HOUR,
          failuresToSwitch: 1,
          successesToRecover: 1,
          // east's probe never settles: only its timeout (on the clock) can fail it.
          probe: (client, member) => {
            probed.push(member);
            return member === 'east' ? new Promise(() => {}) : client.ping();
          },
        },
      },
    );
    const switches = recordSwitches(group);
    const switched = switches.next();
    const due = (delayMs: number) => clock.parked.filter((timer) => timer.delayMs === delayMs);
    await waitUntil('the probe timers', async () => (due(HOUR).length === 2 ? true : `${due(HOUR).length}`), {
      timeoutMs: 3_000,
    });
    for (const timer of due(HOUR)) timer.fire();
    await waitUntil('the probes', async () => (probed.length === 2 ? true : probed.join()), {
      timeoutMs: 5_000,
    });
    expect(group.active).toBe('east');
    await waitUntil(
      'the timeout of east',
      async () => (due(2 * HOUR).length >= 1 ? true : clock.parked.map((t) => t.delayMs).join()),
      {
        timeoutMs: 3_000,
      },
    );
    for (const timer of due(2 * HOUR)) timer.fire();
    const change = await switched;
    expect([change.from, change.to, change.reason]).toEqual(['east', 'west', 'unhealthy']);
  });
});
