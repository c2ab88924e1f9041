// The `client` suite's node-redis driver: `createClient` from the `redis` package with its
// defaults; explicit pipelines are `.multi()…execAsPipeline()` (no MULTI/EXEC sent).
import { createClient } from 'redis';
import type { ClientDriver } from './driver.js';

export async function connectNodeRedis(url: string): Promise<ClientDriver> {
  const client = createClient({ url });
  client.on('error', () => {
    // A lost connection shows up as failed commands; without a listener it would crash the worker.
  });
  await client.connect();
  return {
    get: (key) => client.get(key),
    set: (key, value) => client.set(key, value),
    pipelineGets(keys) {
      const multi = client.multi();
      for (const key of keys) multi.get(key);
      return multi.execAsPipeline();
    },
    async close() {
      await client.close();
    },
  };
}
