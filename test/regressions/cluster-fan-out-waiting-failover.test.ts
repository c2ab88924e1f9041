// Issue 11 "Routing" (keyless commands by their request-policy tip: DBSIZE sums over every primary)
// meets today's "keyless commands waiting on a dropped primary go to another primary"
// (cluster-keyless-waiting-failover.test.ts), against a real cluster behind the fault proxy: a
// DBSIZE's part for a primary whose connection was down waited there; a failover demoted that
// primary, and the part went to "another primary", one that already had its own part, so the sum
// counted that primary twice and the promoted replica's keys not at all. A fan-out part (or a SCAN
// page) is pinned to its node: it now goes to the primary that took over that node's shard.
import { describe, expect, it } from 'vitest';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster);

describe('a DBSIZE part waiting for a primary a failover demoted', () => {
  it('is answered by the promoted replica: the sum counts every shard once', async () => {
    const redis = await kit.open({ acquireTimeout: 30_000, reconnect: () => 50 });
    const [victim, second, third] = cluster.primaries;
    // A different number of keys per shard, so that a shard counted twice or missed shows.
    const counts = [1, 4, 9];
    await redis.send(['FLUSHALL']);
    for (const [i, node] of [victim!, second!, third!].entries()) {
      const { tag } = tagOn(cluster, node, `dbsize${i}`);
      for (let k = 0; k < counts[i]!; k++) await redis.set(`${tag}:${k}`, 'v');
    }
    expect(await redis.send(['DBSIZE'])).toBe(14);
    const proxy = kit.proxied.proxyOf(victim!);
    const accepted = proxy.connectionsAccepted;
    await proxy.setMode('reset');
    await proxy.waitForConnectionsAccepted(accepted + 1);
    const size = redis.send(['DBSIZE']);
    await cluster.failover(victim!);
    expect(await size).toBe(14);
  }, 90_000);
});
