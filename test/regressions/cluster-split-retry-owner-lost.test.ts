// Issue 11 "Routing" (MGET, MSET… split per slot) meets seed 000 "Retries" (a retry whose owner has
// no connection and an open circuit, with other primaries known, waits for a topology read: a new
// owner admits it), against a real cluster behind the fault proxy: a single GET's retry asked the
// other primaries and found the slot's new owner, but a split MGET's retry sent its part to the
// old owner by the stale map, whose circuit rejected it at once, so the MGET failed with
// RespireCircuitOpenError though the slot had moved to a healthy node. Now a retried split command
// with a part for such an owner waits for the topology read first, as a single command does.
import { describe, expect, it } from 'vitest';
import { outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
/** Trips after 1 failure at a rate of a half; stays open for the test. */
const BREAKER = { minimumFailureCount: 1, failureRateThreshold: 0.5, openDuration: 60_000 };
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: BREAKER });

describe('a retried split read with a part for a disconnected, open owner whose slot moved', () => {
  it('asks the other primaries for the owner: the new owner answers it', async () => {
    const redis = await kit.open({ retry: { maxAttempts: 2 } });
    const [owner, next, well] = cluster.primaries as [ClusterNode, ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, owner, 'splitretry');
    const moved = `${tag}:k`;
    const stays = `${tagOn(cluster, well, 'splitretry-well').tag}:k`;
    await redis.mset({ [moved]: 'v', [stays]: 'w' }); // one success: the one failure below makes the rate 0.5
    await cluster.migrateSlot(slot, next);
    // The MGET's part is written before the client sees its connection reset: it fails (read-only,
    // so retried), the owner's circuit opens, and the retry finds it disconnected and open.
    await kit.proxied.proxyOf(owner).setMode('refuse');
    const reply = outcome(redis.mget([moved, stays]));
    await kit.proxied.proxyOf(owner).closeAllConnections();
    expect(await reply).toEqual(['v', 'w']);
    expect(redis.circuitOf(kit.proxied.dialled(owner))?.state).toBe('open');
  });
});
