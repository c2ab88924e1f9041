// Seams that held (kept as coverage): closing a client whose tracking connection is waiting to reconnect, or whose tracking connection
// is lost while a read is in flight: close() must not wait for the tracking connection's backoff,
// and the in-flight read's reply must not be stored (its coverage ended before it arrived).
import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../../kit/vitest-redis.js';
import { waitUntil } from '../../kit/wait-until.js';
import { PROTOCOLS, useTestClients } from '../support.js';
import { cachedThenTrackerKilled, heldInFlight, trackingClientIds, untilCached } from './support.js';

describe.each(PROTOCOLS)('the tracking connection and close (RESP%i)', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });

  it('close() resolves while the tracking connection waits a long reconnect delay', async () => {
    const redis = await clients.open({
      clientSideCache: { maxEntries: 10 },
      reconnect: { minDelay: 60_000, maxDelay: 60_000 },
    });
    await cachedThenTrackerKilled(redis, await clients.open());
    const started = performance.now();
    await redis.close();
    // Far below the 60 s reconnect delay: close() did not wait for it.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('a read in flight when the tracking connection is lost is not stored', async () => {
    const { proxy, client: redis } = await clients.proxied({
      clientSideCache: { maxEntries: 10 },
      reconnect: { minDelay: 10, maxDelay: 10 },
    });
    const admin = await clients.open();
    await admin.mset({ warm: '1', k: 'old' });
    await untilCached(redis, () => redis.get('warm'));
    const { reply: read } = await heldInFlight(proxy, 300, () => redis.get('k'));
    const [tracker] = await trackingClientIds(admin);
    await admin.send(['CLIENT', 'KILL', 'ID', tracker!]);
    // The tracking connection is back before the read's reply: still, that read was covered by
    // the lost one, which may have missed a write, so it is not stored.
    await waitUntil(
      'a new tracking connection',
      async () => {
        const ids = await trackingClientIds(admin);
        return (ids.length === 1 && ids[0] !== tracker) || 'not yet';
      },
      { timeoutMs: 5000, intervalMs: 5 },
    );
    expect(await read).toBe('old');
    expect(redis.cacheStats!.entries).toBe(0);
    const { misses } = redis.cacheStats!;
    await redis.get('k');
    expect(redis.cacheStats!.misses).toBe(misses + 1);
  });
});
