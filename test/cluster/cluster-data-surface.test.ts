// Issue 13's data surface in Cluster mode, against a real 3-primary/3-replica cluster: streamed
// values, hash imports and durability batches run on a dedicated connection of the key's slot
// owner; writes across slots fail with CROSSSLOT before anything is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, RespireServerError } from '../../src/index.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();

describe('Cluster: streamed values, hash imports, durability batches', () => {
  let redis: RespireClient;
  beforeAll(async () => {
    redis = await RespireClient.connect({ endpoints: [cluster.endpoints[0]!], useCluster: true });
  });
  afterAll(async () => {
    await redis?.close();
  });

  const keys = Array.from({ length: 6 }, (_, i) => `data:${i}`);

  it('setFromStream and getStream go to the slot owner of each key', async () => {
    expect(new Set(await Promise.all(keys.map((key) => cluster.keySlot(key)))).size).toBeGreaterThan(1);
    for (const key of keys) {
      const value = Buffer.alloc(300_000, key.length);
      value.write(key);
      expect(
        await redis.setFromStream(key, [value.subarray(0, 1000), value.subarray(1000)], {
          length: value.length,
        }),
      ).toBe(true);
      const owner = await cluster.nodeFor(key);
      expect(await cluster.command(owner, ['STRLEN', key])).toBe(value.length);
      const read = Buffer.concat(await redis.getStream(key).toArray());
      expect(read.equals(value)).toBe(true);
    }
  });

  it('importHash with replace renames a temporary key in the key slot on the owner', async () => {
    for (const key of ['data:hash', '{tag}:hash']) {
      await redis.hset(key, 'old', '1');
      const entries = Array.from({ length: 25 }, (_, i): [string, string] => [`f${i}`, `v${i}`]);
      const job = redis.importHash(key, entries, { chunkFields: 10, replace: true });
      expect(await job.run()).toEqual({ fields: 25, transactions: 3 });
      const owner = await cluster.nodeFor(key);
      expect(await cluster.command(owner, ['HLEN', key])).toBe(25);
      expect(await cluster.command(owner, ['KEYS', '*respire-import*'])).toEqual([]);
    }
  });

  it('durable(): writes of one slot and WAIT on its owner, acknowledged by its replica', async () => {
    const batch = redis.durable({ replicas: 1, timeout: 5_000 });
    batch.set('{d}:a', '1');
    batch.set('{d}:b', '2');
    const report = await batch.execute();
    expect(report.acknowledged).toBe(true);
    expect(report.writes.map((write) => write.replicas)).toEqual([1, 1]);
    const owner = await cluster.nodeFor('{d}:a');
    expect(await cluster.command(owner, ['GET', '{d}:b'])).toBe('2');
  });

  it('durable(): writes across slots fail with CROSSSLOT, nothing sent', async () => {
    const batch = redis.durable({ replicas: 0, timeout: 100 });
    const a = batch.set('cross:a', '1');
    batch.set('cross:b', '2');
    const report = await batch.execute();
    await expect(a).rejects.toBeInstanceOf(RespireServerError);
    expect((report.writes[0]!.error as RespireServerError).code).toBe('CROSSSLOT');
    // It names what the caller sent: a durable batch, not a MULTI it never wrote.
    expect((report.writes[0]!.error as Error).message).toMatch(/\(durable batch\)$/);
    expect(report.acknowledged).toBe(false);
    expect(await redis.send(['EXISTS', 'cross:a'])).toBe(0);
  });
});
