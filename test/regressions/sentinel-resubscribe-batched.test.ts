// Sentinel (issue 12): on a switch the router made the subscriptions again on the new primary name
// by name and listener by listener, one SUBSCRIBE per name. Now each kind moves in one command
// (every name with all its listeners), and every listener still hears its names there.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';

const group = useRedisSentinel();

it('moves every channel and pattern subscription to the new primary in one command per kind', async () => {
  const redis = await RespireClient.connect({
    sentinel: { serviceName: group.serviceName, endpoints: [...group.sentinels] },
    connectTimeout: 1_000,
    reconnect: () => 50,
  });
  try {
    const heard: string[] = [];
    const listener = (tag: string) => (message: unknown, channel: unknown) =>
      heard.push(`${tag}:${String(channel)}:${String(message)}`);
    await redis.subscribe(['a', 'b', 'c'], listener('one'));
    await redis.subscribe(['b', 'c'], listener('two'));
    await redis.psubscribe(['p:*', 'q:*'], listener('pattern'));
    // What the client sends (diagnostics.ts): the sentinels' own SUBSCRIBEs on the nodes do not count.
    const sent: string[] = [];
    const onStart = (message: unknown): void => {
      sent.push((message as { command: string }).command);
    };
    subscribe('respire:command:start', onStart);
    let next: { port: number };
    try {
      next = await group.failover({ untilSettled: false });
      await expect.poll(() => redis.endpoint.port, { timeout: 15_000 }).toBe(next.port);
      // Three channels and two patterns on the new primary.
      await expect
        .poll(async () => (await group.command(next, ['PUBSUB', 'CHANNELS', '[abc]'])) as string[], {
          timeout: 10_000,
        })
        .toHaveLength(3);
      await expect.poll(() => group.command(next, ['PUBSUB', 'NUMPAT']), { timeout: 10_000 }).toBe(2);
    } finally {
      unsubscribe('respire:command:start', onStart);
    }
    expect(sent.filter((name) => /SUBSCRIBE$/.test(name)).sort()).toEqual(['PSUBSCRIBE', 'SUBSCRIBE']);
    await group.command(next, ['PUBLISH', 'c', 'm1']);
    await group.command(next, ['PUBLISH', 'p:x', 'm2']);
    await expect
      .poll(() => [...heard].sort(), { timeout: 5_000 })
      .toEqual(['one:c:m1', 'pattern:p:x:m2', 'two:c:m1'].sort());
  } finally {
    redis.destroy();
    group.beforeNextTest(() => group.settle());
  }
}, 90_000);
