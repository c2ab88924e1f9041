// The client-side cache and its connections (issue 13): entries go when the tracking connection is
// lost or black-holed, but survive a data connection being replaced; an invalidation that arrives
// while a read is in flight keeps that read's reply out; circuits never see a hit; the meter counts.
import { describe, expect, it } from 'vitest';
import {
  RespireCircuitOpenError,
  type RespireCounter,
  type RespireMeter,
  type RespireMetricAttributes,
} from '../../../src/index.js';
import { useRedisServer } from '../../kit/vitest-redis.js';
import { waitUntil } from '../../kit/wait-until.js';
import { PROTOCOLS, useTestClients } from '../support.js';
import { cachedThenTrackerKilled, dataClientIds, heldInFlight, untilCached, untilEmpty } from './support.js';

const CACHE = { maxEntries: 100 };

describe.each(PROTOCOLS)('client-side cache connections over RESP%i', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });

  it('drops the entries when the tracking connection is lost, and caches again once it is back', async () => {
    const redis = await clients.open({ clientSideCache: CACHE, reconnect: { minDelay: 10, maxDelay: 10 } });
    await cachedThenTrackerKilled(redis, await clients.open());
    expect(await untilCached(redis, () => redis.get('k'))).toBe('v');
  });

  it('keeps its entries when a data connection is replaced (Redis still tells the tracking connection)', async () => {
    const redis = await clients.open({
      clientSideCache: CACHE,
      clientName: 'cached',
      reconnect: { minDelay: 10, maxDelay: 10 },
    });
    const admin = await clients.open();
    await admin.set('k', 'v');
    await untilCached(redis, () => redis.get('k'));
    for (const id of await dataClientIds(admin, 'cached')) await admin.send(['CLIENT', 'KILL', 'ID', id]);
    const { hits } = redis.cacheStats!;
    expect(await redis.get('k')).toBe('v');
    expect(redis.cacheStats).toMatchObject({ hits: hits + 1, entries: 1 });
    // The tracking connection still hears writes.
    await admin.set('k', 'w');
    await untilEmpty(redis);
    expect(await redis.get('k')).toBe('w');
  });

  it('keeps its entries through health checks that are answered', async () => {
    const redis = await clients.open({ clientSideCache: CACHE });
    const admin = await clients.open();
    await admin.set('k', 'v');
    await admin.send(['CONFIG', 'RESETSTAT']);
    await untilCached(redis, () => redis.get('k'));
    await waitUntil(
      'three health checks',
      async () => {
        const calls = /^cmdstat_ping:calls=(\d+)/m.exec(String(await admin.send(['INFO', 'commandstats'])));
        return Number(calls?.[1] ?? 0) >= 3 || 'fewer PINGs';
      },
      { timeoutMs: 5000, intervalMs: 50 },
    );
    const { hits } = redis.cacheStats!;
    expect(await redis.get('k')).toBe('v');
    expect(redis.cacheStats).toMatchObject({ hits: hits + 1, invalidations: 0 });
  });

  it('drops the entries once a black-holed tracking connection misses its health check', async () => {
    const { proxy, client: redis } = await clients.proxied({ clientSideCache: CACHE });
    await redis.set('k', 'v');
    await untilCached(redis, () => redis.get('k'));
    await proxy.setMode('blackhole');
    const start = performance.now();
    // Hits are still served meanwhile (nothing is sent for them)…
    expect(await redis.get('k')).toBe('v');
    // …until the health check gives up: 500 ms interval + 1000 ms deadline at most (README).
    await untilEmpty(redis, 5000);
    const staleMs = performance.now() - start;
    expect(staleMs).toBeGreaterThan(0);
    console.info(`RESP${protocol}: entries served for ${staleMs.toFixed(0)} ms into a black hole`);
  });

  it('does not store a reply when its key was invalidated while the read was in flight', async () => {
    const { proxy, client: redis } = await clients.proxied({ clientSideCache: CACHE });
    const other = await clients.open();
    await other.mset({ warm: '1', k: 'old' });
    await untilCached(redis, () => redis.get('warm'));
    // The read's reply is held 500 ms at the proxy; the invalidation of the write below is not.
    const { reply: read } = await heldInFlight(proxy, 500, () => redis.get('k'));
    await other.set('k', 'new');
    const { entries } = redis.cacheStats!;
    expect(await read).toBe('old');
    expect(redis.cacheStats!.entries).toBe(entries);
    expect(await redis.get('k')).toBe('new');
  });

  it('never checks or records a hit: cached reads go on while the circuit is open', async () => {
    const redis = await clients.open({
      clientSideCache: CACHE,
      circuitBreaker: { failureRateThreshold: 0.01, minimumFailureCount: 1, openDuration: 60_000 },
    });
    const admin = await clients.open();
    await admin.set('k', 'v');
    await untilCached(redis, () => redis.get('k'));
    const before = redis.circuit!.snapshot();
    for (let i = 0; i < 10; i++) expect(await redis.get('k')).toBe('v');
    expect(redis.circuit!.snapshot().total).toBe(before.total);
    // A miss is checked and recorded like any command.
    await redis.get('uncached');
    expect(redis.circuit!.snapshot().total).toBe(before.total + 1);
    // A reply timeout opens the circuit (CLIENT PAUSE holds the reply past 50 ms).
    await admin.send(['CLIENT', 'PAUSE', '300', 'ALL']);
    await expect(redis.send(['GET', 'slow'], { timeout: 50 })).rejects.toThrow();
    expect(redis.circuit!.state).toBe('open');
    expect(await redis.get('k')).toBe('v');
    await expect(redis.get('another')).rejects.toBeInstanceOf(RespireCircuitOpenError);
  });

  it('stores nothing, and reads as without a cache, for a user refused CLIENT TRACKING', async () => {
    const admin = await clients.open();
    await admin.send([
      'ACL',
      'SETUSER',
      'untracked',
      'on',
      '>secret',
      '~*',
      '&*',
      '+@all',
      '-client|tracking',
    ]);
    const redis = await clients.open({ clientSideCache: CACHE, username: 'untracked', password: 'secret' });
    await admin.set('k', 'v');
    // Once the server has refused the tracking connection's CLIENT TRACKING (its ACL LOG says so)…
    await waitUntil(
      'the refusal',
      async () => deepText(await admin.send(['ACL', 'LOG'])).includes('client|tracking') || 'not refused yet',
      { timeoutMs: 5000, intervalMs: 10 },
    );
    for (let i = 0; i < 20; i++) expect(await redis.get('k')).toBe('v');
    expect(redis.cacheStats).toMatchObject({ hits: 0, misses: 20, entries: 0 });
  });

  it('records the reply of a fire-and-forget cacheable read, which fills the cache', async () => {
    const redis = await clients.open({ clientSideCache: CACHE, circuitBreaker: {} });
    await redis.mset({ warm: '1', k: 'v' });
    await untilCached(redis, () => redis.get('warm'));
    const before = redis.circuit!.snapshot().total;
    // A fire-and-forget write records nothing (its reply is discarded)…
    await redis.set('other', '1');
    await redis.send(['SET', 'other', '2'], { fireAndForget: true });
    await redis.send(['PING']);
    expect(redis.circuit!.snapshot().total).toBe(before + 2);
    // …but a fire-and-forget cacheable read waits for its reply, records it, and stores it.
    expect(await redis.send(['GET', 'k'], { fireAndForget: true })).toBeUndefined();
    await waitUntil(
      'the read recorded',
      async () => redis.circuit!.snapshot().total === before + 3 || 'not yet',
      {
        timeoutMs: 5000,
        intervalMs: 5,
      },
    );
    const { hits } = redis.cacheStats!;
    expect(await redis.send(['GET', 'k'])).toBe('v');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
  });

  it('counts hits, misses, evictions and invalidations through the meter', async () => {
    const counts = new Map<string, number>();
    const meter: RespireMeter = {
      createCounter(name: string): RespireCounter {
        return {
          add(value: number, _attributes?: RespireMetricAttributes) {
            counts.set(name, (counts.get(name) ?? 0) + value);
          },
        };
      },
    };
    const redis = await clients.open({ clientSideCache: { maxEntries: 1 }, meter });
    const admin = await clients.open();
    await admin.mset({ a: '1', b: '2' });
    await untilCached(redis, () => redis.get('a'));
    await untilCached(redis, () => redis.get('b')); // evicts a
    await admin.set('b', '3');
    await untilEmpty(redis);
    const stats = redis.cacheStats!;
    await redis.close();
    expect(stats.evictions).toBe(1);
    expect(stats.invalidations).toBe(1);
    expect(counts.get('respire.cache.hits')).toBe(stats.hits);
    expect(counts.get('respire.cache.misses')).toBe(stats.misses);
    expect(counts.get('respire.cache.evictions')).toBe(1);
    expect(counts.get('respire.cache.invalidations')).toBe(1);
  });
});

/** A reply as text, maps included (RESP3 ACL LOG entries are maps). */
function deepText(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) => (item instanceof Map ? [...item] : item));
}
