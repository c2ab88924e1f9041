// The `client-cache` suite's node-redis driver: `createClient` from the `redis` package with RESP3
// and its `clientSideCache` (LRU).
import { createClient } from 'redis';
import { type CachedDriver, ratioSince } from './cached.js';

export async function connectCachedNodeRedis(url: string, maxEntries: number): Promise<CachedDriver> {
  const client = createClient({ url, RESP: 3, clientSideCache: { maxEntries, evictPolicy: 'LRU' } });
  client.on('error', () => {
    // A lost connection shows up as failed commands; without a listener it would crash the worker.
  });
  await client.connect();
  return {
    get: (key) => client.get(key),
    set: (key, value) => client.set(key, value),
    pipelineGets: () => Promise.reject(new Error('not measured')),
    ...ratioSince(() => {
      const stats = client.clientSideCache!.stats();
      return { hits: stats.hitCount, misses: stats.missCount };
    }),
    async close() {
      await client.close();
    },
  };
}
