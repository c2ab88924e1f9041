// Found by the deterministic simulation (issue 16, Cluster world: `npm run simulate -- --seed 191
// --mode cluster`; Sentinel world: `--seed 174 --mode sentinel`): a command waiting for the
// connection of a primary that a failover replaced moved to the new owner with a fresh acquire
// deadline (Cluster: a new attempt), or with its deadline but no timer for it on the new node's
// channel (Sentinel's switch), so it could wait far longer than `acquireTimeout` in all. It now
// keeps its deadline, and the channel it moves to holds a timer for it.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster);
const ACQUIRE_MS = 8_000;

describe('a command moved by a failover while it waits for a connection', () => {
  it('fails by its first acquire deadline when the new owner cannot be reached either', async () => {
    const redis = await kit.open({ acquireTimeout: ACQUIRE_MS, reconnect: () => 50 });
    const victim = cluster.primaries[0]!;
    const replica = cluster.nodes.find((node) => node.primaryId === victim.id)!;
    const key = `${tagOn(cluster, victim, 'moved-deadline').tag}:k`;
    await redis.set(key, '1');
    const proxy = kit.proxied.proxyOf(victim);
    const accepted = proxy.connectionsAccepted;
    // Neither the old owner nor the replica about to take over can be reached by the client.
    await kit.proxied.proxyOf(replica).setMode('reset');
    await proxy.setMode('reset');
    await proxy.waitForConnectionsAccepted(accepted + 1);
    const started = Date.now();
    const waiting = redis.get(key).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await cluster.failover(victim);
    const error = await waiting;
    // What a command that found no connection by its acquire deadline gets, sent nowhere.
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false });
    // By its deadline on the first node (plus the timers' and a loaded machine's slack), not a
    // fresh acquireTimeout from when it moved (1.5 s and the failover later, at the earliest).
    expect(Date.now() - started).toBeLessThan(ACQUIRE_MS + 1_200);
  }, 90_000);
});
