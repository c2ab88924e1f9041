// Regression (issue 13 "The client's own writes invalidate locally before their promise resolves"):
// a durability batch's write has a promise of its own, which resolves with the write's reply,
// before `execute()` has the acknowledgement. The batch dropped its writes' keys from the
// client-side cache only once `execute()` had everything, so a caller awaiting the write itself and
// then reading the key got the cached old value (the server's invalidation comes on the tracking
// connection, another socket with no ordering against the write's reply: the test holds its reads).
import { describe, expect, it } from 'vitest';
import { pauseTracking, untilCached } from '../client/cache/support.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

describe('a durability batch write and the client-side cache', () => {
  it('a GET after the write itself resolved reads its value', async () => {
    const redis = await open({ clientSideCache: { maxEntries: 100 } });
    await redis.set('ryw:durable-write', 'old');
    await untilCached(redis, () => redis.get('ryw:durable-write'));
    pauseTracking(redis);
    const batch = redis.durable({ replicas: 0, timeout: 100 });
    const write = batch.set('ryw:durable-write', 'new');
    const executed = batch.execute();
    expect(await write).toBe('OK');
    expect(await redis.get('ryw:durable-write')).toBe('new');
    expect((await executed).writes[0]?.applied).toBe(true);
  });

  it('in a key-prefixed view too', async () => {
    const redis = await open({ clientSideCache: { maxEntries: 100 } });
    const app = redis.withKeyPrefix('app:');
    await redis.set('app:ryw', 'old');
    await untilCached(redis, () => app.get('ryw'));
    pauseTracking(redis);
    const batch = app.durable({ replicas: 0, timeout: 100 });
    const write = batch.set('ryw', 'new');
    const executed = batch.execute();
    expect(await write).toBe('OK');
    expect(await app.get('ryw')).toBe('new');
    expect((await executed).acknowledged).toBe(true);
  });
});
