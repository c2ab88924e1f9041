// Issue 11 (a node per endpoint, made and dropped as the topology changes) meeting `onPubSubError`:
// each error listener kept, for every node ever made, the function that takes it off that node's
// subscriber, and with it the node itself: a long-lived Cluster client whose nodes come and go (a
// refresh that drops nodes, here because every node's address changed) held every closed node for
// as long as the listener stayed. A node closed for good is now let go.
//
// What is held is internal, so the test reads the client's own bookkeeping of the listener.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { type ProxiedCluster, proxyEveryNode, tagOn } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
let before: ProxiedCluster;
let after: ProxiedCluster;
beforeAll(async () => {
  before = await proxyEveryNode(cluster);
  after = await proxyEveryNode(cluster);
});
afterAll(async () => {
  await before?.stop();
  await after?.stop();
});

interface ListenerBookkeeping {
  pubsub: { errorListeners: Set<{ removers: Map<{ endpoint: { port?: number } }, () => void> }> };
}

/** The ports of the nodes the client's one error listener is still attached to. */
function attachedPorts(redis: RespireClient): number[] {
  const [added] = (redis as unknown as ListenerBookkeeping).pubsub.errorListeners;
  return [...added!.removers.keys()].map((node) => node.endpoint.port!).sort();
}

function proxyPorts(proxied: ProxiedCluster, nodes: readonly ClusterNode[]): number[] {
  return nodes.map((node) => proxied.proxyOf(node).port).sort();
}

describe('an onPubSubError listener on a Cluster client whose nodes are replaced', () => {
  it('stays attached to the live nodes only', async () => {
    let proxied = before;
    const redis = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      cluster: { refreshInterval: 0, addressMap: (endpoint) => proxied.addressMap(endpoint) },
    });
    try {
      redis.onPubSubError(() => {});
      const keys = cluster.primaries.map((primary, i) => `${tagOn(cluster, primary, `live${i}`).tag}:k`);
      for (const key of keys) await redis.get(key);
      expect(attachedPorts(redis)).toEqual(proxyPorts(before, cluster.primaries));

      // Every node now has another address: the refresh a MOVED asks for drops each old node.
      proxied = after;
      const [source, target] = cluster.primaries as [ClusterNode, ClusterNode];
      const { tag, slot } = tagOn(cluster, source, 'moved');
      await cluster.migrateSlot(slot, target);
      try {
        await redis.get(`${tag}:k`);
        for (const key of keys) await redis.get(key);
        await expect
          .poll(() => attachedPorts(redis).filter((port) => !proxyPorts(after, cluster.nodes).includes(port)))
          .toEqual([]);
      } finally {
        await cluster.migrateSlot(slot, source);
      }
    } finally {
      await redis.close();
    }
  });
});
