// Issue 11 "Topology" (refreshes never need a node that has died): a node black-holed early in the
// refresh order cost `connectTimeout` on every refresh, since each one asked the nodes in the same
// order. A node whose topology read just failed is now asked last, so the next refresh goes
// straight to a live one. Seen through the dead node's fault proxy: no connection is made to it.
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/client/options.js';
import { TopologyRefresher } from '../../src/cluster/topology-refresher.js';
import { outcomeWithin } from '../client/support.js';
import { useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster);

/**
 * A started refresher whose topology reads go through the cluster's fault proxies, and the proxy
 * of the first node a refresh asks (the first online primary of the map), black-holed.
 */
async function refresherWithFirstNodeDead(connectTimeout: number) {
  const options = resolveOptions({
    endpoints: [cluster.endpoints[0]!],
    useCluster: true,
    connectTimeout,
    cluster: { refreshInterval: 0, addressMap: kit.proxied.addressMap },
  });
  const refresher = new TopologyRefresher(options, () => {});
  await refresher.start();
  const first = refresher.topology!.nodes.find(
    (node) => node.role === 'primary' && node.health === 'online',
  )!;
  const proxy = [...kit.proxied.proxies.values()].find(
    (candidate) => candidate.port === first.endpoint.port,
  )!;
  await proxy.setMode('blackhole');
  return { refresher, proxy };
}

describe('a topology refresh', () => {
  it('asks a node whose read just failed last, so a black-holed node costs one timeout, not one per refresh', async () => {
    const { refresher, proxy } = await refresherWithFirstNodeDead(300);
    try {
      const before = proxy.connectionsAccepted;
      await refresher.refresh(); // asks the dead node first, times out, then the next one answers
      expect(proxy.connectionsAccepted).toBe(before + 1);
      await refresher.refresh();
      await refresher.refresh();
      expect(proxy.connectionsAccepted).toBe(before + 1);
    } finally {
      refresher.stop();
    }
  });
});

// Issue 11 review: stop() (the client's close) left a topology read in flight to run out its
// deadline, its connection outliving close() by up to `connectTimeout`. It now ends at once.
describe('stopping the refresher', () => {
  it('ends a topology read in flight at once, and its connection', async () => {
    const { refresher, proxy } = await refresherWithFirstNodeDead(20_000);
    const before = proxy.connectionsAccepted;
    const refreshing = refresher.refresh();
    await proxy.waitForConnectionsAccepted(before + 1);
    refresher.stop();
    // Its connection ends with it (readTopology destroys it on the way out), long before the
    // 20 s deadline; the proxy cannot show that, as a partition holds the client's FIN.
    expect(await outcomeWithin(refreshing, 1_000)).toEqual({ value: undefined });
    expect(proxy.connectionsAccepted).toBe(before + 1);
  });
});
