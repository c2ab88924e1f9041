// Read your writes with the client-side cache (issue 13): `setFromStream`, `importHash` and
// `durable()` write on a dedicated connection, around the client's usual send path, so they must
// drop the key's cache entry themselves before their promise resolves. Redis's invalidation comes
// on the tracking connection, another socket with no ordering against the write's reply: the test
// holds that socket's reads (as a loaded machine or a slow network may) so that only the client's
// own invalidation can keep the next read from answering the old value.
import { describe, expect, it } from 'vitest';
import type { RespireClient } from '../../src/index.js';
import { pauseTracking, untilCached } from '../client/cache/support.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

async function cachedClient(): Promise<RespireClient> {
  return open({ clientSideCache: { maxEntries: 100 } });
}

describe('read your writes through the cache', () => {
  it('a GET after setFromStream resolves reads the streamed value, not the cached one', async () => {
    const redis = await cachedClient();
    await redis.set('ryw:stream', 'old');
    await untilCached(redis, () => redis.get('ryw:stream'));
    pauseTracking(redis);
    expect(await redis.setFromStream('ryw:stream', ['new'], { length: 3 })).toBe(true);
    expect(await redis.get('ryw:stream')).toBe('new');
  });

  it('an HGET after importHash resolves reads the imported field', async () => {
    const redis = await cachedClient();
    await redis.hset('ryw:hash', 'f', 'old');
    await untilCached(redis, () => redis.hget('ryw:hash', 'f'));
    pauseTracking(redis);
    await redis.importHash('ryw:hash', [['f', 'new']], { chunkFields: 10, replace: true }).run();
    expect(await redis.hget('ryw:hash', 'f')).toBe('new');
  });

  it('a GET after a durability batch executed reads its write', async () => {
    const redis = await cachedClient();
    await redis.set('ryw:durable', 'old');
    await untilCached(redis, () => redis.get('ryw:durable'));
    pauseTracking(redis);
    const batch = redis.durable({ replicas: 0, timeout: 100 });
    void batch.set('ryw:durable', 'new');
    expect((await batch.execute()).writes[0]?.applied).toBe(true);
    expect(await redis.get('ryw:durable')).toBe('new');
  });
});
