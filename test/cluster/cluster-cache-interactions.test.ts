// Where the Cluster client-side cache meets key-prefixed views and slot moves (issue 13): a
// prefixed view's entries are the client's (the full key), invalidated by another client's write on
// the key's node; a fire-and-forget cacheable read that meets MOVED fills the cache from the new
// owner and records its reply there; a read in flight while its slot moves is never stored stale.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { untilCached } from '../client/cache/support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { tagOn } from './cluster-support.js';

const cluster = useRedisCluster();

describe('Cluster client-side cache: views and slot moves', () => {
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

  it('a prefixed view shares entries with the client and hears another client write on the node', async () => {
    const redis = await open();
    const owner = cluster.primaries[2]!;
    const { tag } = tagOn(cluster, owner, 'view');
    const app = redis.withKeyPrefix(`${tag}:`);
    await cluster.command(owner, ['SET', `${tag}:k`, 'v1']);
    expect(await untilCached(redis, () => app.get('k'))).toBe('v1');
    const { hits } = redis.cacheStats!;
    expect(await redis.get(`${tag}:k`)).toBe('v1');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    // Read through from the prefixed view: the server's value, the entry left alone.
    expect(await app.withoutCache().get('k')).toBe('v1');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    await cluster.command(owner, ['SET', `${tag}:k`, 'v2']);
    await waitUntil('the invalidation', async () => (await app.get('k')) === 'v2' || 'still v1', {
      timeoutMs: 5000,
      intervalMs: 10,
    });
  });

  it('a fire-and-forget read that meets MOVED fills the cache from the new owner and records there', async () => {
    const redis = await open();
    const [source, target] = cluster.primaries;
    const { tag, slot } = tagOn(cluster, source!, 'ff-moved');
    await untilCached(redis, () => redis.get(`${tag}:warm`));
    await cluster.migrateSlot(slot, target!);
    await cluster.command(target!, ['SET', `${tag}:k`, 'moved']);
    const circuit = redis.circuitOf({ host: target!.host, port: target!.port })!;
    // The target's tracking connection is armed (every primary gets one at once).
    const armed = tagOn(cluster, target!, 'armed').tag;
    await untilCached(redis, () => redis.get(`${armed}:k`));
    const before = circuit.snapshot().total;
    expect(await redis.send(['GET', `${tag}:k`], { fireAndForget: true })).toBeUndefined();
    await waitUntil('the read recorded', async () => circuit.snapshot().total === before + 1 || 'not yet', {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    const { hits } = redis.cacheStats!;
    expect(await redis.get(`${tag}:k`)).toBe('moved');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    await cluster.migrateSlot(slot, source!);
  });
});
