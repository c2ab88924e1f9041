// Regression: the tracking connection's health check and the cache meter's report ran on the
// global setInterval, not on the client's clock (util/timers.ts), so a simulated clock (test/sim)
// neither ran them in its own time nor saw them: every other timer of the client is on the clock.
// Here a clock whose time moves only when the test says: the health check's PING is sent, and the
// meter reports, when that clock has moved, and no global interval is started.
import { describe, expect, it, vi } from 'vitest';
import type { RespireCounter, RespireMeter } from '../../src/index.js';
import { manualClock, untilCached } from '../client/cache/support.js';
import { PROTOCOLS, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

describe.each(PROTOCOLS)('client-side cache timers (RESP%i)', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });

  it('the health check and the meter report run on the client clock', async () => {
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const counts = new Map<string, number>();
    const meter: RespireMeter = {
      createCounter: (name): RespireCounter => ({
        add: (value) => counts.set(name, (counts.get(name) ?? 0) + value),
      }),
    };
    const clock = manualClock();
    const redis = await clients.open({ clientSideCache: { maxEntries: 10 }, clock, meter });
    const admin = await clients.open();
    await admin.set('k', 'v');
    await untilCached(redis, () => redis.get('k'));
    expect(intervals).not.toHaveBeenCalled();

    await admin.send(['CONFIG', 'RESETSTAT']);
    clock.advance(500);
    await waitUntil(
      'a health check',
      async () =>
        /^cmdstat_ping:calls=1\b/m.test(String(await admin.send(['INFO', 'commandstats']))) || 'no PING',
      { timeoutMs: 5000, intervalMs: 10 },
    );
    expect(counts.get('respire.cache.hits')).toBeUndefined();
    clock.advance(500);
    expect(counts.get('respire.cache.hits')).toBe(redis.cacheStats!.hits);
  });
});
