// The `client` suite's ioredis drivers: its defaults (auto-pipelining off), or with
// `enableAutoPipelining`; explicit pipelines are `.pipeline()…exec()`.
import { Redis } from 'ioredis';
import type { ClientDriver } from './driver.js';

export async function connectIoredis(url: string, enableAutoPipelining: boolean): Promise<ClientDriver> {
  const redis = new Redis(url, { enableAutoPipelining, lazyConnect: true });
  await redis.connect();
  return {
    get: (key) => redis.get(key),
    set: (key, value) => redis.set(key, value),
    async pipelineGets(keys) {
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.get(key);
      const replies = (await pipeline.exec()) ?? [];
      return replies.map(([error, value]) => {
        if (error !== null) throw error;
        return value;
      });
    },
    async close() {
      await redis.quit();
    },
  };
}
