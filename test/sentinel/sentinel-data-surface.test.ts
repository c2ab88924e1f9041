// Issue 13's data surface in Sentinel mode, against a real primary, 2 replicas and 3 Sentinels:
// streamed values, hash imports and durability batches run on the primary the sentinels name, and
// a durability batch's WAIT counts that primary's real replicas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';

const group = useRedisSentinel();

describe('Sentinel: streamed values, hash imports, durability batches', () => {
  let redis: RespireClient;
  beforeAll(async () => {
    redis = await RespireClient.connect({
      sentinel: { serviceName: group.serviceName, endpoints: [...group.sentinels] },
      readFrom: 'replica',
      connectTimeout: 2_000,
    });
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('streams a value up to the primary and back', async () => {
    const value = Buffer.alloc(2 * 1024 * 1024, 7);
    expect(await redis.setFromStream('s:big', [value], { length: value.length })).toBe(true);
    expect(await group.command(group.primary, ['STRLEN', 's:big'])).toBe(value.length);
    expect(Buffer.concat(await redis.getStream('s:big').toArray()).equals(value)).toBe(true);
  });

  it('imports a hash on the primary', async () => {
    const entries = Array.from({ length: 15 }, (_, i): [string, string] => [`f${i}`, `v${i}`]);
    await redis.importHash('s:hash', entries, { chunkFields: 10, replace: true }).run();
    expect(await group.command(group.primary, ['HLEN', 's:hash'])).toBe(15);
  });

  it('a durability batch is acknowledged by both replicas', async () => {
    const batch = redis.durable({ replicas: 2, timeout: 5_000 });
    batch.set('s:durable', '1');
    const report = await batch.execute();
    expect(report.acknowledged).toBe(true);
    expect(report.writes[0]!.replicas).toBe(2);
  });
});
