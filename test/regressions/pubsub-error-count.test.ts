// Regression: what a caller of subscribe(), psubscribe(), ssubscribe() or their unsubscribe
// counterparts received was never counted in `redis.client.errors`, though `respire:command:error`
// published the same SUBSCRIBE failure: a subscribe the server refused (NOPERM) was invisible to
// the metric that counts every other error a caller receives. Each is now counted once per call.
import { expect, it } from 'vitest';
import { RespireMetricGroups, RespireServerError } from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { channelUser } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

it.each([3, 2] as const)('counts each failed (un)subscribe call once (RESP%i)', async (protocol) => {
  const admin = await clients.open();
  const username = `counted${protocol}`;
  await channelUser(admin, username, ['allowed:*']);
  const meter = new RecordingMeter();
  const client = await clients.open({
    protocol,
    username,
    password: 'pw',
    meter,
    metricGroups: [RespireMetricGroups.Commands],
  });
  const types = () => meter.of('redis.client.errors').map((m) => m.attributes?.['error.type']);
  await client.subscribe('allowed:a', () => {});
  expect((await outcome(client.subscribe('forbidden', () => {}))).error).toBeInstanceOf(RespireServerError);
  expect((await outcome(client.ssubscribe('forbidden', () => {}))).error).toBeInstanceOf(RespireServerError);
  expect(types()).toEqual(['NOPERM', 'NOPERM']);
  expect((await outcome(client.psubscribe([], () => {}))).error).toBeInstanceOf(TypeError);
  expect((await outcome(client.unsubscribe([42 as unknown as string]))).error).toBeInstanceOf(TypeError);
  expect(types()).toEqual(['NOPERM', 'NOPERM', 'TypeError', 'TypeError']);
  await client.unsubscribe('allowed:a');
  expect(types()).toHaveLength(4);
});
