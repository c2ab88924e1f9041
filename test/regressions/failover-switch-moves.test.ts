// What a failover group switch moves from a member it can no longer reach (issue 14 "Switching":
// commands not yet accepted by the old member move, and are admitted on the new one; seed 000
// "Retries": "a failover group's new active member"). Two defects of the review:
// - a transaction nothing of which was written stayed queued whole on the old member: it waited
//   out its acquire deadline and failed, or ran there once the member came back. It now moves
//   whole, before any of it is written, as a Sentinel switch moves one (sentinel-router.ts);
// - a blocking command issued while the member was down failed at once with the connect error
//   while a GET queued and moved. Standalone members now hold blocking commands under their
//   acquire deadline, as Sentinel nodes do (blocking-hold.ts), and the switch moves the held ones.
import { describe, expect, it } from 'vitest';
import type { RespireFailoverGroup } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { HEALTH, MARGIN_MS, recordSwitches, useGroups, withClient } from '../failover/support.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

const SWITCH_BOUND_MS = HEALTH.interval * HEALTH.failuresToSwitch + HEALTH.timeout + MARGIN_MS;

/**
 * A group of east (behind a proxy, made unreachable by `fault`) and west; resolves once east's
 * member has no connection, so commands issued now wait for one. `switched` settles on the switch.
 */
async function eastUnreachable(
  proxy: FaultProxy,
  fault: 'reset' | 'refuse',
): Promise<{ group: RespireFailoverGroup; switched: Promise<unknown> }> {
  const group = await groups.connect(
    { east: proxy.port, west: west.port },
    { failbackDelay: 600_000, member: { acquireTimeout: 30_000 } },
  );
  const switched = recordSwitches(group).next();
  await proxy.setMode(fault);
  if (fault === 'refuse') await proxy.closeAllConnections();
  const eastNode = [...group.members[0]!.client!.nodes][0]!;
  await waitUntil(
    'east without a connection',
    async () => (eastNode.main.current === undefined ? true : 'connected'),
    { timeoutMs: 5_000 },
  );
  return { group, switched };
}

describe('a failover switch', () => {
  it('moves a transaction the old member never accepted to the new one, whole', async () => {
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: east.port } });
    try {
      const { group, switched } = await eastUnreachable(proxy, 'reset');
      const tx = group.client.multi();
      const set = tx.set('fg:tx', 'moved');
      const incr = tx.incr('fg:tx-count');
      const executed = tx.exec();
      expect(await outcomeWithin(switched, SWITCH_BOUND_MS)).not.toBe('pending');
      expect(await outcomeWithin(executed, 5_000)).toEqual({ value: ['OK', 1] });
      expect(await set).toBe('OK');
      expect(await incr).toBe(1);
      expect(await withClient(west.port, (client) => client.get('fg:tx'))).toBe('moved');
      expect(await withClient(east.port, (client) => client.get('fg:tx'))).toBeNull();
    } finally {
      await proxy.stop();
    }
  });

  it('moves a blocking command held while the old member was unreachable to the new one', async () => {
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: east.port } });
    try {
      const { group, switched } = await eastUnreachable(proxy, 'refuse');
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
