// The `cluster` suite's node-redis drivers: `createCluster` from the `redis` package with its
// defaults, which give every command a 5 s timeout (an `AbortSignal.timeout` each), or with that
// timeout off (`commandOptions: { timeout: 0 }`), its fastest configuration. Its `mGet` splits a
// cross-slot MGET per slot by the command's request policy and joins the values in key order.
import { createCluster } from 'redis';
import type { ClusterDriver } from './driver.js';

export async function connectNodeRedisCluster(
  seeds: readonly { host: string; port: number }[],
  commandTimeout: boolean,
): Promise<ClusterDriver> {
  const cluster = createCluster({
    rootNodes: seeds.map(({ host, port }) => ({ socket: { host, port } })),
    ...(commandTimeout ? {} : { commandOptions: { timeout: 0 } }),
  });
  cluster.on('error', () => {
    // A lost connection shows up as failed commands; without a listener it would crash the worker.
  });
  await cluster.connect();
  return {
    get: (key) => cluster.get(key),
    set: (key, value) => cluster.set(key, value),
    mget: (keys) => cluster.mGet([...keys]),
    async close() {
      await cluster.close();
    },
  };
}
