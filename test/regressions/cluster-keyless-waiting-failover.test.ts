// Found by the deterministic simulation (issue 16, Cluster world: `npm run simulate -- --seed 17
// --mode cluster`): keyless commands (ECHO, PUBLISH) waiting for the connection of a primary that
// a failover made a replica stayed on it when the new map came: only attempts with a slot moved.
// They waited for a node that no longer took them until `acquireTimeout` (or, when the map dropped
// the node, failed with "the client is closed" though it was not). Nothing of them was sent, so
// they now go to another primary.
import { describe, expect, it } from 'vitest';
import { useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster);

describe('keyless commands waiting for a primary a failover demoted', () => {
  it('go to another primary once the map says so', async () => {
    const redis = await kit.open({ acquireTimeout: 30_000, reconnect: () => 50 });
    const victim = cluster.primaries[0]!;
    // Every primary's node made and connected: keyless commands take turns over the primaries.
    const count = 3 * cluster.primaries.length;
    await Promise.all(Array.from({ length: count }, (_, i) => redis.send(['ECHO', `warm${i}`])));
    const proxy = kit.proxied.proxyOf(victim);
    const accepted = proxy.connectionsAccepted;
    await proxy.setMode('reset');
    // The client lost its connection and tries again (each new one is reset at once): what it
    // sends to the victim from now on waits for a connection.
    await proxy.waitForConnectionsAccepted(accepted + 1);
    const echoes = Array.from({ length: count }, (_, i) => redis.send(['ECHO', `e${i}`]));
    await cluster.failover(victim);
    expect(await Promise.all(echoes)).toEqual(Array.from({ length: count }, (_, i) => `e${i}`));
  }, 90_000);
});
