// The `client` suite's node-redis drivers: `createClient` from the `redis` package with its
// defaults, which arm a 5 s `AbortSignal.timeout` per command until it is written
// (@redis/client's DEFAULT_COMMAND_TIMEOUT, lib/defaults.js, used in commands-queue.js
// `addCommand`), or with that timeout off (`commandOptions: { timeout: 0 }`), its fastest
// configuration. Explicit pipelines are `.multi()…execAsPipeline()` (no MULTI/EXEC sent).
import { createClient } from 'redis';
import type { ClientDriver } from './driver.js';

export async function connectNodeRedis(url: string, commandTimeout = true): Promise<ClientDriver> {
  const client = createClient({ url, ...(commandTimeout ? {} : { commandOptions: { timeout: 0 } }) });
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
