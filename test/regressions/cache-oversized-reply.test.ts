// Regression: a reply larger than `maxBytes` on its own was stored, and the bound then evicted
// from the least recently used end until it held: every other entry first, then the reply itself.
// One read of a big value (a report, a blob) emptied the whole hot set, on every such read. A
// reply that cannot fit is now not stored (counted as an eviction), and the rest stay.
import { describe, expect, it } from 'vitest';
import { untilCached } from '../client/cache/support.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

describe('a reply larger than maxBytes', () => {
  const server = useRedisServer();
  const clients = useTestClients(server);

  it('is not stored, and leaves the other entries in place', async () => {
    const redis = await clients.open({ clientSideCache: { maxEntries: 100, maxBytes: 2000 } });
    await redis.mset({ a: '1', b: '2', big: 'x'.repeat(5000) });
    await untilCached(redis, () => redis.get('a'));
    await untilCached(redis, () => redis.get('b'));
    const before = redis.cacheStats!;
    expect(before.entries).toBe(2);
    expect((await redis.get('big'))?.length).toBe(5000);
    expect((await redis.get('big'))?.length).toBe(5000);
    expect(redis.cacheStats).toMatchObject({
      entries: 2,
      hits: before.hits,
      evictions: before.evictions + 2,
    });
    await redis.get('a');
    await redis.get('b');
    expect(redis.cacheStats!.hits).toBe(before.hits + 2);
  });
});
