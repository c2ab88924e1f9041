// Regression (issue 13, seed 000 "fire-and-forget commands that wait for a reply (for client-side
// caching) record it"): in Cluster mode a fire-and-forget cacheable read settled from its attempt's
// write, its reply was dropped by the attempt, so it was never stored and its node's circuit
// recorded nothing, unlike standalone and Sentinel. Also when the read meets MOVED: the new owner's
// reply fills the cache and is recorded there.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { untilCached } from '../client/cache/support.js';
import { tagOn } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();

describe('Cluster client-side cache: fire-and-forget reads', () => {
  const clients: RespireClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy();
  });

  async function open(): Promise<RespireClient> {
    const redis = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      clientSideCache: { maxEntries: 100 },
      circuitBreaker: {},
    });
    clients.push(redis);
    return redis;
  }

  /** A fire-and-forget GET of `key`, recorded once by `owner`'s circuit, then answered from the cache. */
  async function expectFilledAndRecorded(
    redis: RespireClient,
    owner: ClusterNode,
    key: string,
    value: string,
  ) {
    // The owner's tracking connection is armed (every primary gets one at once; this waits for it).
    await untilCached(redis, () => redis.get(`${tagOn(cluster, owner, 'armed').tag}:k`));
    const circuit = redis.circuitOf({ host: owner.host, port: owner.port })!;
    const before = circuit.snapshot().total;
    expect(await redis.send(['GET', key], { fireAndForget: true })).toBeUndefined();
    await waitUntil('the read recorded', async () => circuit.snapshot().total === before + 1 || 'not yet', {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    const { hits } = redis.cacheStats!;
    expect(await redis.get(key)).toBe(value);
    expect(redis.cacheStats!.hits).toBe(hits + 1);
  }

  it('stores a fire-and-forget read and records its reply on its node', async () => {
    const redis = await open();
    const owner = cluster.primaries[1]!;
    const { tag } = tagOn(cluster, owner, 'ff');
    await redis.set(`${tag}:k`, 'v');
    await expectFilledAndRecorded(redis, owner, `${tag}:k`, 'v');
  });

  it('one that meets MOVED fills the cache from the new owner and records there', async () => {
    const redis = await open();
    const [source, target] = cluster.primaries;
    const { tag, slot } = tagOn(cluster, source!, 'ff-moved');
    await untilCached(redis, () => redis.get(`${tag}:warm`));
    await cluster.migrateSlot(slot, target!);
    await cluster.command(target!, ['SET', `${tag}:k`, 'moved']);
    await expectFilledAndRecorded(redis, target!, `${tag}:k`, 'moved');
  });
});
