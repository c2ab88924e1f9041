// Sentinel (issue 12: subscriptions are made again on the new primary; seed 000 "Sentinel":
// what was not yet accepted moves to the new primary). A switch moved only the subscriptions the
// old primary had confirmed. A subscribe issued while the primary was dead (its SUBSCRIBE still
// waiting for the connection) stayed with the old node, which the switch closes: the caller got
// "the client is closed" though the client was open and a new primary was there. Now a subscribe
// not yet confirmed at the switch is made on the new primary too, and resolves once it is there.
import { expect, it } from 'vitest';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();

it('a subscribe issued while the primary is dead is made on the new primary', async () => {
  const redis = await sentinelClient(group);
  try {
    const early: string[] = [];
    await redis.subscribe('outage:early', (message) => early.push(String(message)));
    const old = group.primary;
    const server = group.dataServer(old);
    const promoted = group.killPrimary({ untilSettled: false });
    await server.waitForExit();
    const late: string[] = [];
    const subscribed = redis.subscribe('outage:late', (message) => late.push(String(message)));
    const outcome = subscribed.then(
      () => 'subscribed',
      (error: Error) => error.message,
    );
    const next = await promoted;
    await expect.poll(() => redis.endpoint.port, { timeout: 15_000 }).toBe(next.port);
    expect(await outcome).toBe('subscribed');
    await expect
      .poll(
        async () => {
          await group.command(next, ['PUBLISH', 'outage:late', 'm']);
          await group.command(next, ['PUBLISH', 'outage:early', 'm']);
          return late.length > 0 && early.length > 0;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
  } finally {
    redis.destroy();
  }
}, 90_000);
