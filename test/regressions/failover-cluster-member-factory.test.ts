// A Cluster member of a failover group made its nodes through a factory that dropped `caching`
// and `placeTransaction` (member.ts passed only `create`, where a plain client and the probe client
// pass the whole factory). So, through group.client, the Cluster member behaved unlike a Cluster
// client: with `clientSideCache`, nodes it had never used got no tracking connection, and a cached
// null of a key whose (empty) slot moved to such a node was served for good once the key was
// written there (cluster-cache-slot-move); a transaction waiting for a primary that a failover
// demoted stayed on it instead of moving whole to the slot's new owner
// (cluster-transaction-waiting-failover). The member now passes the whole factory. The probe is
// a constant success so that the Cluster member stays active throughout.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireFailoverGroup, type RespireOptions } from '../../src/index.js';
import { untilCached } from '../client/cache/support.js';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster, useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();
const standalone = useRedisServer();
const kit = useProxiedClients(cluster);

const groups: RespireFailoverGroup[] = [];
afterEach(() => {
  for (const group of groups.splice(0)) group.destroy();
});

async function clusterGroup(member: Partial<RespireOptions>): Promise<RespireFailoverGroup> {
  const group = await RespireFailoverGroup.connect({
    members: [
      {
        name: 'cluster',
        weight: 2,
        options: {
          useCluster: true,
          // Not the primary the transaction test fails over: the probe client may open after it.
          endpoints: cluster.primaries.slice(1).map((node) => kit.proxied.dialled(node)),
          cluster: { addressMap: kit.proxied.addressMap, refreshInterval: 0 },
          ...member,
        },
      },
      {
        name: 'single',
        weight: 1,
        options: { endpoints: [{ host: standalone.host, port: standalone.port }] },
      },
    ],
    healthCheck: { interval: 100, probe: async () => 'ok' },
    failbackDelay: 600_000,
  });
  groups.push(group);
  return group;
}

describe("a failover group's Cluster member", () => {
  it('drops a cached null once the key is written on the new owner of its slot', async () => {
    const group = await clusterGroup({ clientSideCache: { maxEntries: 100 } });
    const redis = group.client;
    const [, source, target] = cluster.primaries;
    const { tag, slot } = tagOn(cluster, source!, 'fg-moving');
    const key = `${tag}:absent`;
    expect(await untilCached(redis, () => redis.get(key))).toBeNull();
    await cluster.migrateSlot(slot, target!);
    try {
      await cluster.command(target!, ['SET', key, 'now-present']);
      await waitUntil(
        'the write heard',
        async () => (await redis.get(key)) === 'now-present' || 'still the cached null',
        { timeoutMs: 5000, intervalMs: 20 },
      );
      expect(group.active).toBe('cluster');
    } finally {
      await cluster.migrateSlot(slot, source!);
    }
  });

  it('moves a transaction waiting for a demoted primary whole to the new owner of its slot', async () => {
    const group = await clusterGroup({ acquireTimeout: 20_000, reconnect: () => 50 });
    const redis = group.client;
    const victim = cluster.primaries[0]!;
    const { tag } = tagOn(cluster, victim, 'fg-tx');
    await redis.send(['SET', `${tag}:a`, '0']);
    const proxy = kit.proxied.proxyOf(victim);
    const accepted = proxy.connectionsAccepted;
    await proxy.setMode('reset');
    await proxy.waitForConnectionsAccepted(accepted + 1);
    const tx = redis.multi();
    tx.incr(`${tag}:a`);
    tx.set(`${tag}:b`, 'x');
    const results = tx.exec();
    const promoted = await cluster.failover(victim);
    expect(await results).toEqual([1, 'OK']);
    expect(await cluster.command(promoted, ['GET', `${tag}:b`])).toBe('x');
    expect(group.active).toBe('cluster');
  }, 90_000);
});
