// Memory per client-side cache entry (issue 13 "memory per entry measured and documented"): the
// heap that 20,000 cached GET replies take, measured after full collections, against the estimate
// `maxBytes` counts (cached-values.ts), which must not undercount by much nor overcount wildly.

import { describe, expect, it } from 'vitest';
import { heapUsed } from '../../kit/heap-used.js';
import { useRedisServer } from '../../kit/vitest-redis.js';
import { useTestClients } from '../support.js';
import { untilCached } from './support.js';

const ENTRIES = 20_000;

describe('client-side cache memory', () => {
  const server = useRedisServer();
  const clients = useTestClients(server);

  it('estimates the heap of a GET entry (16-byte key and value) within 25% of what it takes', async () => {
    const redis = await clients.open({ clientSideCache: { maxEntries: ENTRIES } });
    const value = 'v'.repeat(16);
    for (let start = 0; start < ENTRIES; start += 1000) {
      const batch = redis.batch();
      for (let i = start; i < start + 1000; i++) batch.set(`memory:key:${String(i).padStart(5, '0')}`, value);
      await batch.execute();
    }
    await untilCached(redis, () => redis.get('memory:key:00000'));
    const before = heapUsed();
    const beforeBytes = redis.cacheStats!.bytes;
    // Keys built per call, as an application does: the cache keeps its own.
    for (let start = 1; start < ENTRIES; start += 1000) {
      const reads: Promise<unknown>[] = [];
      for (let i = start; i < Math.min(start + 1000, ENTRIES); i++) {
        reads.push(redis.get(`memory:key:${String(i).padStart(5, '0')}`));
      }
      await Promise.all(reads);
    }
    expect(redis.cacheStats!.entries).toBe(ENTRIES);
    const measured = (heapUsed() - before) / (ENTRIES - 1);
    const estimated = (redis.cacheStats!.bytes - beforeBytes) / (ENTRIES - 1);
    console.info(`cache entry: ${measured.toFixed(0)} B measured, ${estimated.toFixed(0)} B estimated`);
    expect(estimated).toBeGreaterThan(measured * 0.75);
    expect(estimated).toBeLessThan(measured * 1.25);
  });
});
