// The client-side cache against a real redis-server (issue 13, API.md "Client-side cache"):
// what is cached, what invalidates it (another client, FLUSHALL, expiry, the client's own writes),
// read-through and key-prefixed views, over RESP3 and RESP2.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../../src/index.js';
import { useRedisServer } from '../../kit/vitest-redis.js';
import { PROTOCOLS, useTestClients } from '../support.js';
import { untilCached, untilEmpty } from './support.js';

describe('clientSideCache options', () => {
  const server = useRedisServer();
  const clients = useTestClients(server);

  it.each([
    [{}, 'clientSideCache.maxEntries'],
    [{ maxEntries: 0 }, 'clientSideCache.maxEntries'],
    [{ maxEntries: 1.5 }, 'clientSideCache.maxEntries'],
    [{ maxEntries: 10, maxBytes: 0 }, 'clientSideCache.maxBytes'],
    [{ maxEntries: 10, ttl: -1 }, 'clientSideCache.ttl'],
    [{ maxEntries: 10, ttl: 'soon' }, 'clientSideCache.ttl'],
    [{ maxEntries: 10, maxEntrys: 3 }, 'clientSideCache.maxEntrys'],
    [5, 'clientSideCache'],
  ])('refuses %j naming %s', async (value, option) => {
    const error = await clients.open({ clientSideCache: value as never }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RespireConfigurationError);
    expect((error as RespireConfigurationError).option).toBe(option);
  });

  it('has no cache by default', async () => {
    const redis = await clients.open();
    expect(redis.cacheStats).toBeUndefined();
  });
});

describe.each(PROTOCOLS)('client-side cache over RESP%i', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });
  const open = () => clients.open({ clientSideCache: { maxEntries: 100 } });

  it('answers a repeated read from the cache until another client writes the key', async () => {
    const redis = await open();
    const other = await clients.open();
    await other.set('greeting', 'hello');
    expect(await untilCached(redis, () => redis.get('greeting'))).toBe('hello');
    const { hits } = redis.cacheStats!;
    expect(await redis.get('greeting')).toBe('hello');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    await other.set('greeting', 'bonjour');
    await untilEmpty(redis);
    expect(await redis.get('greeting')).toBe('bonjour');
    expect(redis.cacheStats!.invalidations).toBeGreaterThanOrEqual(1);
  });

  it('caches per command and arguments, and FLUSHALL by another client drops everything', async () => {
    const redis = await open();
    const other = await clients.open();
    await other.hset('h', { a: '1', b: '2' });
    await other.rpush('l', ['x', 'y', 'z']);
    await untilCached(redis, () => redis.hget('h', 'a'));
    expect(await redis.hget('h', 'b')).toBe('2');
    expect(await redis.hgetall('h')).toEqual({ a: '1', b: '2' });
    expect(await redis.lrange('l', 0, 0)).toEqual(['x']);
    expect(await redis.lrange('l', 0, -1)).toEqual(['x', 'y', 'z']);
    expect(redis.cacheStats!.entries).toBe(5);
    // A hit hands out a copy: changing it cannot change the cache.
    (await redis.lrange('l', 0, -1)).push('mutated');
    expect(await redis.lrange('l', 0, -1)).toEqual(['x', 'y', 'z']);
    await other.flushall();
    await untilEmpty(redis);
    expect(await redis.hgetall('h')).toEqual({});
  });

  it('drops an entry when its key expires on the server', async () => {
    const redis = await open();
    const other = await clients.open();
    await other.set('short', 'lived', { PX: 200 });
    expect(await untilCached(redis, () => redis.get('short'))).toBe('lived');
    await untilEmpty(redis);
    expect(await redis.get('short')).toBeNull();
  });

  it('reads its own writes at once: a write drops the key before it is sent', async () => {
    const redis = await open();
    await redis.set('mine', '1');
    await untilCached(redis, () => redis.get('mine'));
    await redis.set('mine', '2');
    expect(await redis.get('mine')).toBe('2');
    await untilCached(redis, () => redis.get('mine'));
    const batch = redis.batch();
    batch.incr('mine');
    await batch.execute();
    expect(await redis.get('mine')).toBe('3');
    await untilCached(redis, () => redis.get('mine'));
    const multi = redis.multi();
    multi.incr('mine');
    await multi.exec();
    expect(await redis.get('mine')).toBe('4');
    await untilCached(redis, () => redis.get('mine'));
    // A keyless write (FLUSHDB) drops everything.
    await redis.flushdb();
    expect(redis.cacheStats!.entries).toBe(0);
    expect(await redis.get('mine')).toBeNull();
  });

  it('withoutCache reads through; key-prefixed views share entries by full key', async () => {
    const redis = await open();
    await redis.set('app:k', 'v');
    const app = redis.withKeyPrefix('app:');
    expect(await untilCached(redis, () => app.get('k'))).toBe('v');
    const { hits, misses } = redis.cacheStats!;
    expect(await redis.get('app:k')).toBe('v');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    const fresh = redis.withoutCache();
    expect(await fresh.get('app:k')).toBe('v');
    expect(await fresh.withKeyPrefix('app:').get('k')).toBe('v');
    expect(redis.cacheStats).toMatchObject({ hits: hits + 1, misses });
    // A write through the read-through view still drops the entry.
    await fresh.set('app:k', 'w');
    expect(await app.get('k')).toBe('w');
  });

  it('evicts the least recently used entries past maxEntries and maxBytes', async () => {
    const redis = await clients.open({ clientSideCache: { maxEntries: 2 } });
    await redis.mset({ a: '1', b: '2', c: '3' });
    await untilCached(redis, () => redis.get('a'));
    await untilCached(redis, () => redis.get('b'));
    await redis.get('a'); // b is now the least recently used
    await untilCached(redis, () => redis.get('c'));
    expect(redis.cacheStats).toMatchObject({ entries: 2, evictions: 1 });
    const { hits } = redis.cacheStats!;
    await redis.get('a');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    await redis.get('b');
    expect(redis.cacheStats!.hits).toBe(hits + 1);

    const small = await clients.open({ clientSideCache: { maxEntries: 100, maxBytes: 1000 } });
    await small.mset({ tiny: '1', big: 'x'.repeat(2000) });
    await untilCached(small, () => small.get('tiny'));
    const before = small.cacheStats!;
    await small.get('big');
    await small.get('big');
    // A reply of `big` cannot fit: it is not stored (an eviction each), and `tiny` stays
    // (test/regressions/cache-oversized-reply.test.ts).
    expect(small.cacheStats).toMatchObject({ entries: 1, hits: before.hits, evictions: 2 });
  });

  it('serves an entry no longer than ttl', async () => {
    let offset = 0;
    const clock = { now: () => performance.now() + offset };
    const redis = await clients.open({ clientSideCache: { maxEntries: 10, ttl: 60_000 }, clock });
    await redis.set('aged', '1');
    await untilCached(redis, () => redis.get('aged'));
    offset += 60_000;
    const { hits, evictions } = redis.cacheStats!;
    expect(await redis.get('aged')).toBe('1');
    expect(redis.cacheStats).toMatchObject({ hits, evictions: evictions + 1 });
  });

  it('does not cache commands with time-dependent or random replies', async () => {
    const redis = await open();
    await redis.set('t', '1', { EX: 100 });
    for (let i = 0; i < 3; i++) await redis.send(['TTL', 't']);
    await redis.send(['SRANDMEMBER', 's']);
    expect(redis.cacheStats).toMatchObject({ entries: 0, misses: 0 });
  });
});
