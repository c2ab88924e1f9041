// A failover group switch moved the old member's unwritten commands but not the blocking commands
// its nodes held while the member was unreachable (blocking-hold.ts: a BLPOP whose dedicated
// connection could not open waits under its acquire deadline for the endpoint to come back). They
// waited for the old member, or failed at their deadline, although the group had moved on (issue
// 14 "Switching": commands not yet accepted by the old member move to the new one). Now the held
// ones move with the rest, as a Sentinel switch moves them.
import { describe, expect, it } from 'vitest';
import { outcomeWithin } from '../client/support.js';
import { HEALTH, MARGIN_MS, recordSwitches, useGroups, withClient } from '../failover/support.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

const SWITCH_BOUND_MS = HEALTH.interval * HEALTH.failuresToSwitch + HEALTH.timeout + MARGIN_MS;

describe('a failover switch', () => {
  it('moves a blocking command held while the old member was unreachable to the new one', async () => {
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: east.port } });
    try {
      const group = await groups.connect(
        { east: proxy.port, west: west.port },
        { failbackDelay: 600_000, member: { acquireTimeout: 30_000 } },
      );
      const switched = recordSwitches(group).next();
      await proxy.setMode('refuse');
      await proxy.closeAllConnections();
      const eastNode = [...group.members[0]!.client!.nodes][0]!;
      await waitUntil(
        'east without a connection',
        async () => (eastNode.main.current === undefined ? true : 'connected'),
        { timeoutMs: 5_000 },
      );
      const popped = group.client.blpop(['fg:queue'], 0);
      expect(await outcomeWithin(switched, SWITCH_BOUND_MS)).not.toBe('pending');
      // The BLPOP now blocks on west: a push there answers it.
      await waitUntil(
        'a client blocked on west',
        async () => {
          const info = await withClient(west.port, (client) => client.send(['INFO', 'clients']));
          return /blocked_clients:1/.test(String(info)) ? true : String(info);
        },
        { timeoutMs: 5_000 },
      );
      await withClient(west.port, (client) => client.rpush('fg:queue', ['moved']));
      expect(await outcomeWithin(popped, 5_000)).toEqual({ value: { key: 'fg:queue', element: 'moved' } });
    } finally {
      await proxy.stop();
    }
  });
});
