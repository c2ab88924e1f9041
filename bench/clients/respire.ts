// The `client` suite's Respire driver: RespireClient with its defaults, or with `returnBuffers`;
// explicit pipelines are `redis.batch()` entries written together by `execute()`, which resolves
// with their values.
import { RespireClient } from '../../src/index.js';
import { redisEndpoint } from '../suite.js';
import type { ClientDriver } from './driver.js';

export async function connectRespire(url: string, returnBuffers = false): Promise<ClientDriver> {
  const redis = await RespireClient.connect({ endpoints: [redisEndpoint(url)], returnBuffers });
  return {
    get: (key) => redis.get(key),
    set: (key, value) => redis.set(key, value),
    pipelineGets(keys) {
      const batch = redis.batch();
      for (const key of keys) batch.get(key);
      return batch.execute();
    },
    close: () => redis.close(),
  };
}
