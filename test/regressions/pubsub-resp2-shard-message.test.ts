// Regression (issue 19 #4): over RESP2 a shard message arriving while a SUBSCRIBE was in flight was
// taken as that SUBSCRIBE's reply when the last confirmation had counted 0. Redis counts shard and
// classic subscriptions apart, so UNSUBSCRIBE of the last channel says 0 while shard channels stay.
import { expect, it } from 'vitest';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { recorder } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

it('delivers a shard message that arrives while a SUBSCRIBE awaits its confirmation', async () => {
  const { proxy, client } = await clients.proxied({ protocol: 2 });
  const admin = await clients.open();
  const shard = recorder('during');
  await client.ssubscribe('shard', shard.listener);
  await client.subscribe('classic', () => {});
  // The classic count drops to 0; the shard channel is still subscribed.
  await client.unsubscribe('classic');
  // Requests reach the server late, replies and messages do not: the message overtakes the reply.
  await proxy.setMode('delay', 300, 'toServer');
  const before = proxy.bytesFromClient;
  const later = recorder('after');
  const subscribing = client.subscribe('later', later.listener);
  await proxy.waitForClientBytes(before + 1);
  expect(await admin.spublish('shard', 'during')).toBe(1);
  await shard.received;
  await subscribing;
  expect(await admin.publish('later', 'after')).toBe(1);
  await later.received;
});
