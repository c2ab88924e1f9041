// Regression: the client's own write dropped its keys from the cache only when it was sent. A write
// that runs on the server later than it is sent, on another connection than the reads, let a read
// made in between store the old value, served after the write had resolved until the tracking
// connection's invalidation arrived (a separate socket: nothing orders it before the write's
// reply). Cases: a blocking write (BLMOVE on a dedicated connection) that runs when data arrives;
// and a WATCH session's writes, which did not touch the cache at all (README said "left to the
// server's invalidation"). Here the tracking connection's socket is paused, as a slow or lossy
// path would hold that push; its health check would flush the cache only after ~1.5 s.
import { describe, expect, it } from 'vitest';
import { pauseTracking, untilCached } from '../client/cache/support.js';
import { PROTOCOLS, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

describe.each(PROTOCOLS)('own writes on another connection (RESP%i)', (protocol) => {
  const server = useRedisServer();
  const clients = useTestClients(server, { protocol });
  const open = () => clients.open({ clientSideCache: { maxEntries: 100 } });

  it('a blocking write that runs later is read at once after it resolves', async () => {
    const redis = await open();
    const other = await clients.open();
    await other.rpush('dst', ['a']);
    expect(await untilCached(redis, () => redis.lrange('dst', 0, -1))).toEqual(['a']);
    const release = pauseTracking(redis);
    try {
      const moved = redis.blmove('src', 'dst', 'LEFT', 'RIGHT', 5);
      await waitUntil(
        'BLMOVE blocked',
        async () => /blocked_clients:1/.test(String(await other.send(['INFO', 'clients']))) || 'not yet',
        { timeoutMs: 5000, intervalMs: 5 },
      );
      // A read while the write waits on the server: the old list, correctly.
      expect(await redis.lrange('dst', 0, -1)).toEqual(['a']);
      await other.rpush('src', ['x']);
      expect(await moved).toBe('x');
      expect(await redis.lrange('dst', 0, -1)).toEqual(['a', 'x']);
    } finally {
      release();
    }
  });

  it("a WATCH session's command and transaction are read at once after they resolve", async () => {
    const redis = await open();
    await redis.set('k', 'v1');
    expect(await untilCached(redis, () => redis.get('k'))).toBe('v1');
    const release = pauseTracking(redis);
    try {
      const session = await redis.watch('watched');
      await session.set('k', 'v2');
      expect(await redis.get('k')).toBe('v2');
      const tx = session.multi();
      tx.set('k', 'v3');
      expect(await tx.exec()).toEqual(['OK']);
      expect(await redis.get('k')).toBe('v3');
    } finally {
      release();
    }
  });
});
