// Regression (issue 13, seed 000 "fire-and-forget commands that wait for a reply (for client-side
// caching) record it"): in Cluster mode a fire-and-forget cacheable read settled from its attempt's
// write, its reply was dropped by the attempt, so it was never stored and its node's circuit
// recorded nothing, unlike standalone and Sentinel.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { untilCached } from '../client/cache/support.js';
import { tagOn } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();

describe('Cluster client-side cache: fire-and-forget reads', () => {
  const clients: RespireClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy();
  });

  it('stores a fire-and-forget read and records its reply on its node', async () => {
    const seed = cluster.primaries[0]!;
    const redis = await RespireClient.connect({
      endpoints: [{ host: seed.host, port: seed.port }],
      useCluster: true,
      clientSideCache: { maxEntries: 100 },
      circuitBreaker: {},
    });
    clients.push(redis);
    const owner = cluster.primaries[1]!;
    const { tag } = tagOn(cluster, owner, 'ff');
    await redis.mset({ [`${tag}:warm`]: '1', [`${tag}:k`]: 'v' });
    await untilCached(redis, () => redis.get(`${tag}:warm`));
    const circuit = redis.circuitOf({ host: owner.host, port: owner.port })!;
    const before = circuit.snapshot().total;
    expect(await redis.send(['GET', `${tag}:k`], { fireAndForget: true })).toBeUndefined();
    await waitUntil('the read recorded', async () => circuit.snapshot().total === before + 1 || 'not yet', {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    const { hits } = redis.cacheStats!;
    expect(await redis.get(`${tag}:k`)).toBe('v');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
  });
});
