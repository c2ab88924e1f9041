// Issue 11 "Routing" (keyless commands without a tip go to one primary) meets seed 000's half-open
// round, against a real cluster behind the fault proxy: keyless commands passed over a primary
// whose circuit was `open`, but not one that was half-open with every probe slot taken, which
// rejects just the same. With one sick node of three probing (its one probe in flight), a third
// of the ECHOs failed with RespireCircuitOpenError (probe slots full) though any primary could
// answer them. Now the turn passes over a primary whose circuit would reject the command now.
import { describe, expect, it } from 'vitest';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { openCircuitOf } from './cluster-circuit-support.js';

const cluster = useRedisCluster();
const OPEN_MS = 60_000;
/** Trips after 3 failures (a quarter of the node's outcomes); one probe at a time in half-open (the default). */
const BREAKER = { minimumFailureCount: 3, failureRateThreshold: 0.25, openDuration: OPEN_MS };
/** The client's clock, moved past the open interval by the test (no sleep). */
let skew = 0;
const clock = { now: () => performance.now() + skew };
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: BREAKER, clock });

describe('keyless commands with one primary half-open, its probe slot taken', () => {
  it('go to the other primaries: none is rejected', async () => {
    const redis = await kit.open();
    const sick = cluster.primaries[0] as ClusterNode;
    const onSick = `${tagOn(cluster, sick, 'halfopen').tag}:a`;
    const count = 3 * cluster.primaries.length;
    // Every primary's node made and connected: keyless commands take turns over the primaries.
    await Promise.all(Array.from({ length: count }, (_, i) => redis.send(['ECHO', `warm${i}`])));
    await redis.set(onSick, 'x');
    await openCircuitOf(kit, redis, sick, onSick);
    skew += OPEN_MS + 1;
    // The half-open round's one probe, held in flight by a slow reply.
    const proxy = kit.proxied.proxyOf(sick);
    await proxy.setMode('delay', 500, 'toClient');
    const probe = redis.send(['GET', onSick], { timeout: 5_000 });
    const circuit = redis.circuitOf(kit.proxied.dialled(sick))!;
    await waitUntil('the probe admitted', async () => circuit.state === 'half_open' || circuit.state, {
      timeoutMs: 2_000,
      intervalMs: 5,
    });
    expect(circuit.snapshot().probesInFlight).toBe(1);

    const echoes = await Promise.allSettled(
      Array.from({ length: count }, (_, i) => redis.send(['ECHO', `e${i}`])),
    );
    expect(echoes.map((echo) => (echo.status === 'fulfilled' ? echo.value : String(echo.reason)))).toEqual(
      Array.from({ length: count }, (_, i) => `e${i}`),
    );
    expect(await probe).toBe('x');
  });
});
