// Sentinel (issue 12: subscriptions are made again on the new primary). A switch moved only the
// subscriptions the old primary had already confirmed. A SUBSCRIBE written to the old primary but
// not yet answered when the switch was learnt was confirmed there afterwards: the caller's
// subscribe resolved, on a node the switch was closing, and the subscription was silently gone
// (nothing published on the new primary reached it). Now a subscribe whose node was closed under it
// is made again on the node the router names. The old primary is paused (CLIENT PAUSE ALL) so that
// the SUBSCRIBE is unanswered while the sentinels promote a replica.
import { expect, it } from 'vitest';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();

it('a subscribe in flight on the old primary during a switch ends up on the new primary', async () => {
  const redis = await sentinelClient(group, { commandTimeout: 30_000 });
  try {
    const early: string[] = [];
    await redis.subscribe('in-flight:early', (message) => early.push(String(message)));
    const old = group.primary;
    await group.command(old, ['CLIENT', 'PAUSE', '8000', 'ALL']);
    const late: string[] = [];
    const outcome = redis
      .subscribe('in-flight:late', (message) => late.push(String(message)))
      .then(
        () => 'subscribed',
        (error: Error) => error.message,
      );
    const next = await group.failover({ untilSettled: false });
    await expect.poll(() => redis.endpoint.port, { timeout: 15_000 }).toBe(next.port);
    expect(await outcome).toBe('subscribed');
    await expect
      .poll(
        async () => {
          await group.command(next, ['PUBLISH', 'in-flight:late', 'm']);
          await group.command(next, ['PUBLISH', 'in-flight:early', 'm']);
          return { late: late.length > 0, early: early.length > 0 };
        },
        { timeout: 10_000 },
      )
      .toEqual({ late: true, early: true });
  } finally {
    redis.destroy();
  }
}, 90_000);
