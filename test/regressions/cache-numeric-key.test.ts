// Regression: a key given as a number was cached under JavaScript's text of it (`String(1e21)` is
// '1e+21'), while the encoder writes its plain decimal ('1000000000000000000000'), which is the key
// the server's invalidations name. Another client's write never reached the entry: stale for good.
import { describe, expect, it } from 'vitest';
import { untilCached } from '../client/cache/support.js';
import { PROTOCOLS, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

describe.each(PROTOCOLS)('a numeric key (RESP%i)', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });

  it.each([1e21, 1e-7])('is invalidated by a write to the key %s names on the wire', async (key) => {
    const redis = await clients.open({ clientSideCache: { maxEntries: 10 } });
    const other = await clients.open();
    const wire = String(await other.send(['ECHO', key]));
    expect(wire).not.toBe(String(key));
    await other.mset({ [wire]: 'old', marker: '1' });
    expect(await untilCached(redis, () => redis.send(['GET', key]))).toBe('old');
    await untilCached(redis, () => redis.get('marker'));
    await other.mset({ [wire]: 'new', marker: '2' });
    // The marker's entry goes with the same invalidation push as the key's.
    await waitUntil('the invalidation', async () => redis.cacheStats!.entries < 2 || 'not yet', {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    expect(await redis.send(['GET', key])).toBe('new');
  });
});
