// Found by the deterministic simulation (issue 16, Cluster world: `npm run simulate -- --seed 111
// --mode cluster`, also seed 298): a transaction waiting for the connection of a primary that a new
// map no longer names for its slot stayed on it: only routed commands moved. It waited until
// `acquireTimeout` (or, when the map dropped the node, failed with "the client is closed" though it
// was not). Nothing of it was sent, so it now moves whole to the slot's new owner.
import { describe, expect, it } from 'vitest';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster);

describe('a transaction waiting for a primary a failover demoted', () => {
  it('runs whole on the new owner of its slot', async () => {
    const redis = await kit.open({ acquireTimeout: 20_000, reconnect: () => 50 });
    const victim = cluster.primaries[0]!;
    const { tag } = tagOn(cluster, victim, 'tx');
    await redis.send(['SET', `${tag}:a`, '0']);
    const proxy = kit.proxied.proxyOf(victim);
    const accepted = proxy.connectionsAccepted;
    await proxy.setMode('reset');
    // The client lost its connection and tries again (each new one is reset at once): the
    // transaction waits for a connection that will not come.
    await proxy.waitForConnectionsAccepted(accepted + 1);
    const tx = redis.multi();
    tx.incr(`${tag}:a`);
    tx.set(`${tag}:b`, 'x');
    const results = tx.exec();
    const promoted = await cluster.failover(victim);
    expect(await results).toEqual([1, 'OK']);
    expect(await cluster.command(promoted, ['GET', `${tag}:b`])).toBe('x');
  }, 90_000);
});
