// The `client-cache` suite's Respire driver: RespireClient with `clientSideCache`.
import { RespireClient } from '../../src/index.js';
import { redisEndpoint } from '../suite.js';
import { type CachedDriver, ratioSince } from './cached.js';

export async function connectCachedRespire(url: string, maxEntries: number): Promise<CachedDriver> {
  const redis = await RespireClient.connect({
    endpoints: [redisEndpoint(url)],
    clientSideCache: { maxEntries },
  });
  return {
    get: (key) => redis.get(key),
    set: (key, value) => redis.set(key, value),
    pipelineGets: () => Promise.reject(new Error('not measured')),
    ...ratioSince(() => {
      const { hits, misses } = redis.cacheStats!;
      return { hits, misses };
    }),
    close: () => redis.close(),
  };
}
