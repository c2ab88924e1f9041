// Standalone read replicas (issue 12 "Standalone replicas"): with `replicaEndpoints`, read-only
// commands go to the replicas under `readFrom` and writes to `endpoints[0]`; refused together with
// `circuitBreaker` (seed 000 "Limits").
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RespireClient, RespireConfigurationError } from '../../src/index.js';
import { type RedisServer, startRedisServer } from '../kit/redis-server.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { useTestClients } from './support.js';

const primary = useRedisServer();
const clients = useTestClients(primary);
let replica: RedisServer;

beforeAll(async () => {
  replica = await startRedisServer({ args: ['--replicaof', primary.host, String(primary.port)] });
});
afterAll(async () => {
  await replica?.stop();
});

async function calls(port: number, command: string): Promise<number> {
  const client = await RespireClient.connect({ endpoints: [{ host: '127.0.0.1', port }] });
  try {
    const info = String(await client.send(['INFO', 'commandstats']));
    const match = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info);
    return match === null ? 0 : Number(match[1]);
  } finally {
    client.destroy();
  }
}

it("reads on the replica with readFrom 'replica', writes on the primary", async () => {
  const redis = clients.track(
    await RespireClient.connect({
      endpoints: [{ host: primary.host, port: primary.port }],
      replicaEndpoints: [{ host: replica.host, port: replica.port }],
      readFrom: 'replica',
    }),
  );
  expect(await redis.set('replica:k', 'v')).toBe('OK');
  // The replica serves what it has replicated: wait until it has the key.
  await expect.poll(() => redis.get('replica:k'), { timeout: 20_000, interval: 50 }).toBe('v');
  const [readsBefore, writesBefore] = [await calls(replica.port, 'get'), await calls(primary.port, 'set')];
  for (let i = 0; i < 10; i++) expect(await redis.get('replica:k')).toBe('v');
  await redis.set('replica:k2', 'w');
  expect((await calls(replica.port, 'get')) - readsBefore).toBe(10);
  expect((await calls(primary.port, 'set')) - writesBefore).toBe(1);
});

it('refuses replicaEndpoints with circuitBreaker, and readFrom without replicas', async () => {
  for (const options of [
    { replicaEndpoints: ['127.0.0.1:1'], circuitBreaker: {} },
    { readFrom: 'replica' as const },
  ]) {
    const error = await RespireClient.connect({ endpoints: ['127.0.0.1:1'], ...options }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RespireConfigurationError);
  }
});
