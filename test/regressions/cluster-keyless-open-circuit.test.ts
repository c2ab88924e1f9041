// Issue 11 "Routing" (keyless commands without a tip go to one primary) meets "Circuits" (seed 000:
// an open node does not affect commands routed to healthy nodes), against a real cluster behind
// the fault proxy: keyless commands took turns over every primary, the one whose circuit was open
// too, so with one sick node a third of them (ECHO, PING, a command whose keys the server is asked
// for) failed with RespireCircuitOpenError though any primary could answer them. Now the turn skips
// a primary whose circuit is open while another one's is not (as classic subscriptions do).
import { describe, expect, it } from 'vitest';
import { RespireTimeoutError } from '../../src/index.js';
import { outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
/** Trips after 3 failures (a quarter of the node's outcomes); stays open for the test. */
const BREAKER = { minimumFailureCount: 3, failureRateThreshold: 0.25, openDuration: 60_000 };
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: BREAKER });

describe('keyless commands with one primary’s circuit open', () => {
  it('go to the healthy primaries: none is rejected', async () => {
    const redis = await kit.open();
    const sick = cluster.primaries[0] as ClusterNode;
    const onSick = `${tagOn(cluster, sick, 'keyless').tag}:a`;
    const count = 3 * cluster.primaries.length;
    // Every primary's node made and connected: keyless commands take turns over the primaries.
    await Promise.all(Array.from({ length: count }, (_, i) => redis.send(['ECHO', `warm${i}`])));
    await redis.set(onSick, 'x');
    const proxy = kit.proxied.proxyOf(sick);
    await proxy.setMode('blackhole');
    const failures = await Promise.all([0, 1, 2].map(() => outcome(redis.get(onSick))));
    for (const failure of failures) expect(failure).toBeInstanceOf(RespireTimeoutError);
    await proxy.setMode('pass');
    expect(redis.circuitOf(kit.proxied.dialled(sick))?.state).toBe('open');

    const echoes = await Promise.all(
      Array.from({ length: count }, (_, i) => outcome(redis.send(['ECHO', `e${i}`]))),
    );
    expect(echoes).toEqual(Array.from({ length: count }, (_, i) => `e${i}`));
  });
});
