// The `cluster` suite's ioredis drivers: `new Cluster(seeds)` with its defaults (auto-pipelining
// off), or with `enableAutoPipelining`. ioredis sends a cross-slot MGET whole, and the server (or,
// auto-pipelined, ioredis itself) refuses it, so its users split one per slot themselves: that is
// what `mget` does here, concurrently, joining the values in key order.
import { Cluster } from 'ioredis';
import { keySlot } from '../../src/cluster/key-slot.js';
import type { ClusterDriver } from './driver.js';

export async function connectIoredisCluster(
  seeds: readonly { host: string; port: number }[],
  enableAutoPipelining: boolean,
): Promise<ClusterDriver> {
  const cluster = new Cluster([...seeds], { enableAutoPipelining, lazyConnect: true });
  cluster.on('error', () => {
    // A lost connection shows up as failed commands; ioredis would otherwise print every one.
  });
  await cluster.connect();
  return {
    get: (key) => cluster.get(key),
    set: (key, value) => cluster.set(key, value),
    async mget(keys) {
      const bySlot = new Map<number, number[]>();
      keys.forEach((key, index) => {
        const slot = keySlot(key);
        const group = bySlot.get(slot);
        if (group === undefined) bySlot.set(slot, [index]);
        else group.push(index);
      });
      const values: unknown[] = new Array(keys.length);
      await Promise.all(
        [...bySlot.values()].map(async (indexes) => {
          const replies = await cluster.mget(indexes.map((index) => keys[index]!));
          indexes.forEach((index, i) => {
            values[index] = replies[i];
          });
        }),
      );
      return values;
    },
    async close() {
      await cluster.quit();
    },
  };
}
