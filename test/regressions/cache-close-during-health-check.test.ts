// Regression: close() waited for the tracking connection's health check. That connection carries no
// caller's command, yet close() closed it gracefully, waiting for its PING in flight (up to the
// 1,000 ms health-check deadline, whatever `commandTimeout` says) and then for QUIT's answer: a
// caching client whose server stopped answering took up to 1 s more to close than one without a
// cache (measured: 666 ms against 110 ms with `commandTimeout: 100`). Here the PING's reply is
// held (the tracking socket is not read) on a clock that does not move, so its deadline never
// fires: close() must still resolve, and the entries go with the tracking connection.
import { describe, expect, it } from 'vitest';
import { manualClock, pauseTracking, untilCached } from '../client/cache/support.js';
import { PROTOCOLS, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

describe.each(PROTOCOLS)('close() during a health check (RESP%i)', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });

  it('does not wait for the tracking connection’s PING', async () => {
    const clock = manualClock();
    const redis = await clients.open({ clientSideCache: { maxEntries: 10 }, clock });
    const admin = await clients.open();
    await admin.set('k', 'v');
    await untilCached(redis, () => redis.get('k'));
    await admin.send(['CONFIG', 'RESETSTAT']);
    pauseTracking(redis);
    clock.advance(500);
    await waitUntil(
      'the health check sent',
      async () =>
        /^cmdstat_ping:calls=1\b/m.test(String(await admin.send(['INFO', 'commandstats']))) || 'no PING',
      { timeoutMs: 5000, intervalMs: 10 },
    );
    let closed = false;
    const closing = redis.close().then(() => {
      closed = true;
    });
    expect(redis.cacheStats!.entries).toBe(0);
    await waitUntil('close() resolved', async () => closed || 'still closing', {
      timeoutMs: 3000,
      intervalMs: 10,
    });
    await closing;
  });
});
