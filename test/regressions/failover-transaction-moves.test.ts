// A failover group switch moved the old member's unwritten commands to the new member but left a
// transaction queued whole on the old one (issue 14 "Switching": commands not yet accepted by the
// old member move, and are admitted on the new one; seed 000 "Retries": "a failover group's new
// active member"). With the old member unreachable, the transaction waited there for its acquire
// deadline and failed, or ran on the old member once it came back. It now moves whole, before
// any of it is written, as a Sentinel switch moves one (sentinel-router.ts).
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
  it('moves a transaction the old member never accepted to the new one, whole', async () => {
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: east.port } });
    try {
      const group = await groups.connect(
        { east: proxy.port, west: west.port },
        { failbackDelay: 600_000, member: { acquireTimeout: 30_000 } },
      );
      const switched = recordSwitches(group).next();
      await proxy.setMode('reset');
      const eastNode = [...group.members[0]!.client!.nodes][0]!;
      await waitUntil(
        'east without a connection',
        async () => (eastNode.main.current === undefined ? true : 'connected'),
        { timeoutMs: 5_000 },
      );
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
});
