// Sentinel (issue 12, seed 000 "Sentinel": WATCH state stays on its connection and fails with it).
// A switch closes the old primary's node, which ended its open WATCH sessions as if their owner
// had: the next command, or multi(), failed with a TypeError telling the caller to start a new
// session, a programming-error type for what a failover did (errors are RespireError subclasses).
// Now it fails with a RespireConnectionError (`written: false`) that says the primary was replaced.
// Commands the caller issued before are unaffected; nothing is written to the old primary.
import { expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();

it('a WATCH session on a replaced primary fails with a connection error that says so', async () => {
  const redis = await sentinelClient(group);
  try {
    await redis.set('watch-switch:k', '1');
    const session = await redis.watch('watch-switch:k');
    expect(await session.get('watch-switch:k')).toBe('1');
    const next = await group.failover({ untilSettled: false });
    await expect.poll(() => redis.endpoint.port, { timeout: 15_000 }).toBe(next.port);
    const read = await session.get('watch-switch:k').catch((error: unknown) => error);
    expect(read).toBeInstanceOf(RespireConnectionError);
    expect(read).toMatchObject({ written: false });
    expect((read as Error).message).toMatch(/replaced/);
    let thrown: unknown;
    try {
      session.multi();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RespireConnectionError);
    // The client itself goes on, on the new primary.
    expect(await redis.incr('watch-switch:k')).toBe(2);
  } finally {
    redis.destroy();
  }
}, 90_000);
