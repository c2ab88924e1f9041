// Regression: the reply of a cache miss was stored in the cache as the very object handed to the
// caller, so a caller that changed its reply (pushed to an LRANGE array, filled a returnBuffers
// GET Buffer) changed what later hits returned. Hits were copied; the miss that filled the entry
// was not. With `returnBuffers` the stored Buffer was also a zero-copy view into the connection's
// read slab (transport/slab-reader.ts), pinning the whole slab while `maxBytes` counted 10 bytes.
import { describe, expect, it } from 'vitest';
import { untilCached } from '../client/cache/support.js';
import { PROTOCOLS, useTestClients } from '../client/support.js';
import { heapUsed } from '../kit/heap-used.js';
import { useRedisServer } from '../kit/vitest-redis.js';

describe.each(PROTOCOLS)('a cache miss hands out its own reply (RESP%i)', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });

  it('changing the array a miss returned does not change the next hit', async () => {
    const redis = await clients.open({ clientSideCache: { maxEntries: 100 } });
    await redis.rpush('l', ['x', 'y']);
    await untilCached(redis, () => redis.get('warm'));
    const { misses } = redis.cacheStats!;
    const first = await redis.send(['LRANGE', 'l', '0', '-1']);
    expect(redis.cacheStats!.misses).toBe(misses + 1);
    (first as unknown[]).push('mutated');
    const { hits } = redis.cacheStats!;
    expect(await redis.send(['LRANGE', 'l', '0', '-1'])).toEqual(['x', 'y']);
    expect(redis.cacheStats!.hits).toBe(hits + 1);
  });

  it('changing the Buffer a returnBuffers miss returned does not change the next hit', async () => {
    const redis = await clients.open({ clientSideCache: { maxEntries: 100 }, returnBuffers: true });
    await redis.set('b', 'abc');
    await untilCached(redis, () => redis.get('warm'));
    const first = (await redis.get('b')) as unknown as Buffer;
    first.write('zzz');
    const { hits } = redis.cacheStats!;
    expect(String(await redis.get('b'))).toBe('abc');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
  });

  it('cached returnBuffers values do not pin the read slabs they arrived in', async () => {
    const redis = await clients.open({ clientSideCache: { maxEntries: 1000 }, returnBuffers: true });
    const fresh = redis.withoutCache();
    await redis.set('filler', 'f'.repeat(20_000));
    const keys = Array.from({ length: 200 }, (_, i) => `small:${i}`);
    await redis.mset(Object.fromEntries(keys.map((key) => [key, 'tiny'])));
    await untilCached(redis, () => redis.get('warm'));
    heapUsed();
    const before = process.memoryUsage().arrayBuffers;
    for (const key of keys) {
      await redis.get(key);
      // 20 kB of uncached traffic moves the next read into a new slab (SMALL_SLAB_BYTES).
      await fresh.get('filler');
    }
    expect(redis.cacheStats!.entries).toBe(keys.length + 1);
    heapUsed();
    const grown = process.memoryUsage().arrayBuffers - before;
    // 200 entries of 4 bytes: the estimate counts about 60 kB; pinned slabs would be 200 × 80 kB.
    expect(redis.cacheStats!.bytes).toBeLessThan(100_000);
    expect(grown).toBeLessThan(2_000_000);
  });
});
