// Issue 15 review: a SharedCircuitRegistry whose table is smaller than the endpoints a Cluster
// client needs. A node whose circuit finds no free slot refuses its commands with the table's
// RespireConfigurationError (rejected, `written: false`), never a synchronous throw from `get()` or
// an uncaught one from a redirect or refresh, and takes a slot at a later command once one is free.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireClient, RespireConfigurationError } from '../../src/index.js';
import { callsByPort, resetStats, tagOn } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();

describe('a shared circuit table too small for the cluster', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('refuses the nodes without a slot, settles every call, and frees the slot on close', async () => {
    const registry = new SharedCircuitRegistry({ maxEndpoints: 1 });
    const keys = cluster.primaries.map((node) => `${tagOn(cluster, node, 'full').tag}:k`);
    const first = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      circuitBreaker: { shared: registry },
    });
    let served: string | undefined;
    try {
      const calls: Promise<unknown>[] = [];
      // A synchronous throw fails the test here, before any promise exists.
      for (const key of keys) calls.push(first.get(key));
      const results = await Promise.allSettled(calls);
      const fulfilled = results.flatMap((result, i) => (result.status === 'fulfilled' ? [keys[i]!] : []));
      expect(fulfilled).toHaveLength(1);
      served = fulfilled[0];
      for (const result of results) {
        if (result.status === 'fulfilled') continue;
        expect(result.reason).toBeInstanceOf(RespireConfigurationError);
        expect((result.reason as RespireConfigurationError).option).toBe('maxEndpoints');
      }
      // A second round is refused the same way, nothing thrown, and the refused GETs never reach
      // a server (written: false in effect): only the one node with the slot counts a GET.
      await resetStats(cluster);
      const again = await Promise.allSettled(keys.map((key) => first.get(key)));
      expect(again.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const gets = Object.values(await callsByPort(cluster, 'get'));
      expect(gets.reduce((sum, count) => sum + count, 0)).toBe(1);
    } finally {
      await first.close();
    }
    // The closed client let its slot go: a second client serves a key of another node.
    const other = keys.find((key) => key !== served)!;
    const second = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      circuitBreaker: { shared: registry },
    });
    try {
      await second.set(other, 'v');
      expect(await second.get(other)).toBe('v');
    } finally {
      await second.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});
