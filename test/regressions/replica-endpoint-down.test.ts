// Standalone read replicas (issue 12): with `readFrom: 'replica'` and one of two replicaEndpoints
// down, reads went to the replicas strictly in turn, so every second read waited on the dead
// replica's connection (and failed after its deadline) while the other replica was connected.
// Reads now go to a connected replica when there is one; only with none connected do they wait.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { findFreePort } from '../kit/free-port.js';
import { type RedisServer, startRedisServer } from '../kit/redis-server.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const primary = useRedisServer();
const clients = useTestClients(primary);
let replica: RedisServer;

beforeAll(async () => {
  replica = await startRedisServer({ args: ['--replicaof', primary.host, String(primary.port)] });
});
afterAll(async () => {
  await replica?.stop();
});

it("readFrom 'replica' reads from the connected replica while another replica is down", async () => {
  const deadPort = await findFreePort(); // nothing listens there
  const redis = clients.track(
    await RespireClient.connect({
      endpoints: [{ host: primary.host, port: primary.port }],
      replicaEndpoints: [
        { host: '127.0.0.1', port: deadPort },
        { host: replica.host, port: replica.port },
      ],
      readFrom: 'replica',
      connectTimeout: 300,
      acquireTimeout: 300,
    }),
  );
  expect(await redis.set('replica-down:k', 'v')).toBe('OK');
  await expect
    .poll(() => redis.get('replica-down:k').catch(() => null), { timeout: 20_000, interval: 50 })
    .toBe('v');
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => redis.get('replica-down:k')));
  const failed = results.filter((result) => result.status === 'rejected');
  expect(failed.map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
});
