// Sentinel (issue 12, seed 000 "Sentinel": commands not yet accepted move to the new primary and
// are admitted there, under their original deadline). A blocking command runs on a dedicated
// connection (EndpointNode.runDedicated); issued while the primary was dead, its connection was
// refused and it failed at once, while the switch moved only the shared queue. Now it waits,
// under its acquire deadline, and moves with the switch. A transaction queued while the primary
// is dead moves whole and runs there.
import { expect, it } from 'vitest';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();

it('a BLPOP and a transaction issued while the primary is dead run on the new primary', async () => {
  const redis = await sentinelClient(group);
  try {
    await redis.set('moves:n', '1');
    await redis.send(['WAIT', '2', '5000']);
    const old = group.primary;
    const server = group.dataServer(old);
    const promoted = group.killPrimary({ untilSettled: false });
    await server.waitForExit();
    const popped = redis.send(['BLPOP', 'moves:list', '0']);
    const tx = redis.multi();
    tx.incr('moves:n');
    tx.get('moves:n');
    const committed = tx.exec();
    const next = await promoted;
    await expect.poll(() => redis.endpoint.port, { timeout: 15_000 }).toBe(next.port);
    expect(await committed).toEqual([2, '2']);
    await group.command(next, ['RPUSH', 'moves:list', 'v']);
    expect(await popped).toEqual(['moves:list', 'v']);
  } finally {
    redis.destroy();
  }
}, 90_000);
