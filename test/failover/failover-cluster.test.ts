// A failover group whose members are of different modes (issue 14: "full RespireOptions, any
// mode"): a Redis Cluster member and a standalone one. The group client splits cross-slot commands
// on the Cluster member as a Cluster client does; when the Cluster becomes unreachable, the
// commands its nodes never wrote (queued as attempts of the caller's command) move to the
// standalone member.
import { describe, expect, it } from 'vitest';
import { RespireClient, type RespireFailoverGroup } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster, useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { connectClusterGroup, HEALTH, MARGIN_MS, recordSwitches } from './support.js';

const cluster = useRedisCluster({ replicasPerPrimary: 0 });
const standalone = useRedisServer();
const proxiedClients = useProxiedClients(cluster);

function connectGroup(): Promise<RespireFailoverGroup> {
  return connectClusterGroup(cluster, proxiedClients.proxied, standalone, {
    reconnect: { minDelay: 10, maxDelay: 200 },
    acquireTimeout: 10_000,
  });
}

describe('RespireFailoverGroup with a Cluster member', () => {
  it('serves the group client from the Cluster member, cross-slot commands split', async () => {
    const group = await connectGroup();
    try {
      expect(group.active).toBe('cluster');
      await group.client.mset({ 'fgc:a': '1', 'fgc:b': '2', 'fgc:c': '3' });
      expect(await group.client.mget(['fgc:a', 'fgc:b', 'fgc:c'])).toEqual(['1', '2', '3']);
      const owner = await cluster.nodeFor('fgc:a');
      expect(await cluster.command(owner, ['GET', 'fgc:a'])).toBe('1');
    } finally {
      await group.close();
    }
  });

  it("moves the Cluster member's unwritten commands to the standalone member when it becomes unreachable", async () => {
    const group = await connectGroup();
    try {
      const switches = recordSwitches(group);
      const switched = switches.next();
      await Promise.all([...proxiedClients.proxied.proxies.values()].map((proxy) => proxy.setMode('reset')));
      const nodes = [...group.members[0]!.client!.nodes];
      await waitUntil(
        'the Cluster nodes without connections',
        async () => (nodes.every((node) => node.main.current === undefined) ? true : 'connected'),
        { timeoutMs: 5_000 },
      );
      const pending = group.client.set('fgc:moved', 'single');
      expect(
        await outcomeWithin(switched, HEALTH.interval * HEALTH.failuresToSwitch + HEALTH.timeout + MARGIN_MS),
      ).not.toBe('pending');
      expect(group.active).toBe('single');
      expect(await pending).toBe('OK');
      const check = await RespireClient.connect({
        endpoints: [{ host: standalone.host, port: standalone.port }],
      });
      try {
        expect(await check.get('fgc:moved')).toBe('single');
      } finally {
        await check.close();
      }
    } finally {
      group.destroy();
    }
  });
});
