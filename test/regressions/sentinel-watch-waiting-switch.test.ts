// Found by the deterministic simulation (issue 16, Sentinel world: `npm run simulate -- --seed 126
// --mode sentinel`): a WATCH waiting for a dedicated connection of the primary (the pool full)
// when a switch replaced that primary failed with "the client is closed", though the client was
// not: the old node's close rejected the pool's waiters as if the client had closed it. They now
// fail as the old node's WATCH sessions do, with the error that says the primary was replaced.
import { expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();

it('a WATCH waiting for a dedicated connection of a replaced primary is told so, not that the client closed', async () => {
  const redis = await sentinelClient(group, { maxDedicatedConnections: 1 });
  try {
    const held = await redis.watch('watch-waiting-switch:a');
    const waiting = redis.watch('watch-waiting-switch:b').catch((error: unknown) => error);
    const next = await group.failover({ untilSettled: false });
    await expect.poll(() => redis.endpoint.port, { timeout: 15_000 }).toBe(next.port);
    const error = await waiting;
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false });
    expect((error as Error).message).toMatch(/replaced/);
    await held.release();
    // The client itself goes on, on the new primary.
    expect(await redis.incr('watch-waiting-switch:a')).toBe(1);
  } finally {
    redis.destroy();
  }
}, 90_000);
