// Regression (issue 19 #2): restoring subscriptions after a reconnect stopped as soon as the socket
// asked to drain; the rest were dropped without a sound yet stayed marked confirmed (1,560 of 2,000
// shard channels came back; behind a slow link, the pattern after 10k channels was lost). The
// restore is now written as the socket drains, ahead of anything queued (channel.ts `onConnect`).
import { describe, expect, it } from 'vitest';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextSubscriberReconnect, recorder } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

/** `count` distinct names of `bytes` bytes each. */
function names(prefix: string, count: number, bytes: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    `${prefix}${String(i).padStart(6, '0')}:`.padEnd(bytes, 'x'),
  );
}

describe.each([3, 2] as const)('restoring many subscriptions (RESP%i)', (protocol) => {
  it('restores 2,000 shard channels with 300-byte names', async () => {
    const { proxy, client } = await clients.proxied({ protocol, reconnect: () => 10 });
    const admin = await clients.open();
    const shards = names('shard:', 2_000, 300);
    await client.ssubscribe(shards, () => {});
    expect((await admin.pubsubShardChannels()).length).toBe(2_000);
    const reconnected = nextSubscriberReconnect();
    await proxy.closeAllConnections();
    await reconnected;
    // Written after everything the restore queued, so confirmed after all of it.
    await client.subscribe('marker', () => {});
    expect((await admin.pubsubShardChannels()).length).toBe(2_000);
    const last = recorder('last');
    await client.ssubscribe(shards[1_999]!, last.listener);
    expect(await admin.spublish(shards[1_999]!, 'last')).toBe(1);
    await last.received;
  });

  it('restores 10k channels of 1 KB and a pattern behind a slow link', async () => {
    const { proxy, client } = await clients.proxied({
      protocol,
      reconnect: () => 10,
      commandTimeout: 30_000,
    });
    const admin = await clients.open();
    const channels = names('wide:', 10_000, 1_024);
    await client.subscribe(channels, () => {});
    const matched = recorder('found');
    await client.psubscribe('pattern:*', matched.listener);
    await proxy.setMode('delay', 20, 'both');
    const reconnected = nextSubscriberReconnect();
    await proxy.closeAllConnections();
    await reconnected;
    await client.subscribe('marker', () => {});
    expect(await admin.pubsubNumPat()).toBe(1);
    expect((await admin.pubsubChannels('wide:*')).length).toBe(10_000);
    expect(await admin.publish('pattern:x', 'found')).toBe(1);
    await matched.received;
  });
});
