// Cluster mode (issue 11): a SCAN cursor named its node by position among the primaries sorted by
// address (cluster-scan.ts). A failover changes that list (the promoted replica has another
// address), so a cursor taken before it sent the next page to another node with the first node's
// cursor: keys present throughout the walk were never returned, against SCAN's own guarantee.
// Cursors now name a slot of the node, whose owner after a failover is the promoted replica.
import { expect, it } from 'vitest';
import { endpointKey } from '../../src/client/endpoint.js';
import { commandCalls, useClusterClient } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const client = useClusterClient(cluster, { refreshInterval: 100 });

const byAddress = (a: { host: string; port: number }, b: { host: string; port: number }) => {
  const [x, y] = [endpointKey(a), endpointKey(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

function lowestSlot(node: ClusterNode): number {
  return Math.min(...node.slots.map(([start]) => start));
}

/** A primary other than `current` whose failover changes `current`'s position among the primaries. */
function reorderingFailover(current: ClusterNode): ClusterNode | undefined {
  const primaries = [...cluster.primaries].sort(byAddress);
  const at = primaries.findIndex((node) => node.id === current.id);
  return primaries.find((primary) => {
    if (primary.id === current.id) return false;
    const replica = cluster.replicasOf(primary)[0];
    if (replica === undefined) return false;
    const after = [...primaries.filter((node) => node.id !== primary.id), replica].sort(byAddress);
    return after.findIndex((node) => node.id === current.id) !== at;
  });
}

it('a SCAN walk returns every key present throughout, across a failover', async () => {
  const keys = Array.from({ length: 600 }, (_, i) => `scanfo:${i}`);
  await Promise.all(keys.map((key) => client().set(key, 'v')));
  const seen = new Set<string>();
  let cursor = '0';
  let failedOver = false;
  do {
    const page = await client().scan(cursor, { match: 'scanfo:*', count: 20 });
    for (const key of page.keys) seen.add(String(key));
    cursor = page.cursor;
    if (!failedOver && cursor !== '0') {
      // The cursor names the node by a slot it serves (before the fix: by its position by address).
      const current = cluster.ownerOf(Number(cursor.split('-')[0]));
      // Ports are random: when no failover reorders the address-sorted list (the old defect), fail
      // over another primary anyway once the walk reaches its last node, so the test always runs one.
      const last = [...cluster.primaries].sort((a, b) => lowestSlot(b) - lowestSlot(a))[0]!;
      const victim =
        reorderingFailover(current) ??
        (current.id === last.id ? cluster.primaries.find((node) => node.id !== current.id) : undefined);
      if (victim !== undefined) {
        failedOver = true;
        const promoted = await cluster.failover(victim);
        // The client has the new map once DBSIZE (to every primary) reaches the promoted node.
        await expect
          .poll(async () => {
            await client().send(['DBSIZE']);
            return (await commandCalls(cluster, promoted)).dbsize ?? 0;
          })
          .toBeGreaterThan(0);
      }
    }
  } while (cursor !== '0');
  expect(failedOver).toBe(true);
  expect(keys.filter((key) => !seen.has(key))).toEqual([]);
});
