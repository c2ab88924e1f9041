// The `cluster` suite's Respire driver: RespireClient with `useCluster: true` and its defaults. A
// cross-slot MGET is one call: the client splits it per slot and joins the values in key order.
import { RespireClient } from '../../src/index.js';
import type { ClusterDriver } from './driver.js';

export async function connectRespireCluster(
  seeds: readonly { host: string; port: number }[],
): Promise<ClusterDriver> {
  const redis = await RespireClient.connect({ endpoints: [...seeds], useCluster: true });
  return {
    get: (key) => redis.get(key),
    set: (key, value) => redis.set(key, value),
    mget: (keys) => redis.mget(keys),
    close: () => redis.close(),
  };
}
