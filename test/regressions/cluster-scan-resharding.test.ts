// Issue 11 "Routing" (`scan` with a cursor that encodes the node, `scanIterator` over every primary)
// during resharding, against a real cluster: the walk visited the primaries in the order of their
// lowest slots, recomputed from the current map at each page, and a cursor went on with whichever
// node now served its slot. So a slot moved mid-walk could (1) give a node not yet walked a lowest
// slot behind the cursor, and the walk skipped it whole; (2) move keys from a node not yet walked
// to one already walked, which the walk never came back to; (3) move the slot the cursor stood on,
// and the next page went to the new owner with the old node's cursor (a node cursor means nothing
// on another server, a promoted replica included: each seeds its hash function), leaving the rest
// of the old node unread (also after a failover of that node). The walk now sweeps the slots,
// scans again a node that took slots, and starts a step again on the new owner when its slot moves
// (cluster-scan.ts): every key present for the whole walk is returned at least once.
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { useClusterClient } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const client = useClusterClient(cluster);

/** The primaries by their lowest slot: the order the walk meets them in. */
function bySweep(): ClusterNode[] {
  const lowest = (node: ClusterNode) => Math.min(...node.slots.map(([start]) => start));
  return [...cluster.primaries].sort((a, b) => lowest(a) - lowest(b));
}

function lowestSlot(node: ClusterNode): number {
  return Math.min(...node.slots.map(([start]) => start));
}

/** A hash tag whose slot is `slot`. */
function tagFor(slot: number): string {
  for (let i = 0; ; i++) if (keySlot(`{t${i}}`) === slot) return `{t${i}}`;
}

/** A slot `node` serves other than its lowest (so the node keeps that one). */
function innerSlotOf(node: ClusterNode): number {
  return lowestSlot(node) + 7;
}

/** Writes `count` keys over every slot and `count` more in `tag`'s slot; returns them all. */
async function writeKeys(prefix: string, tag: string, count: number): Promise<string[]> {
  const keys = [
    ...Array.from({ length: count }, (_, i) => `${prefix}:${i}`),
    ...Array.from({ length: count }, (_, i) => `${tag}${prefix}:${i}`),
  ];
  await Promise.all(keys.map((key) => client().set(key, 'v')));
  return keys;
}

/**
 * A walk of `prefix:*`, 10 keys a page, calling `act` (once) at the first page whose cursor stands
 * on a slot `when` accepts, given that slot and whether the node's scan is mid-way; the keys seen.
 */
async function walk(
  prefix: string,
  when: (slot: number, midway: boolean) => boolean,
  act: () => Promise<void>,
): Promise<{ seen: Set<string>; acted: boolean }> {
  const seen = new Set<string>();
  let cursor = '0';
  let acted = false;
  let pages = 0;
  do {
    const page = await client().scan(cursor, { match: `*${prefix}:*`, count: 10 });
    for (const key of page.keys) seen.add(String(key));
    cursor = page.cursor;
    const parts = cursor.split('-');
    if (!acted && cursor !== '0' && when(Number(parts[0]), parts.at(-1) !== '0')) {
      acted = true;
      await act();
    }
  } while (cursor !== '0' && ++pages < 10_000);
  return { seen, acted };
}

/** Moves `slot` to `target`; a GET of a key in it (MOVED) gives the client the new owner at once. */
async function move(slot: number, target: ClusterNode): Promise<void> {
  await cluster.migrateSlot(slot, target);
  await client().get(`${tagFor(slot)}probe`);
}

describe('a SCAN walk while slots move between primaries', () => {
  it('visits a node whose lowest slot moved behind the cursor', async () => {
    const [first, second, third] = bySweep() as [ClusterNode, ClusterNode, ClusterNode];
    // A slot of the first node goes to the third while the walk is on the second: the third's
    // lowest slot is then behind the cursor.
    const slot = innerSlotOf(first);
    const keys = await writeKeys('behind', tagFor(slot), 100);
    const secondSlots = (at: number) => cluster.ownerOf(at).id === second.id;
    const { seen, acted } = await walk('behind', secondSlots, () => move(slot, third));
    expect(acted).toBe(true);
    expect(keys.filter((key) => !seen.has(key))).toEqual([]);
  });

  it('returns keys moved from a node not yet walked to one already walked', async () => {
    const [first, second, third] = bySweep() as [ClusterNode, ClusterNode, ClusterNode];
    const slot = innerSlotOf(third);
    const keys = await writeKeys('back', tagFor(slot), 100);
    const secondSlots = (at: number) => cluster.ownerOf(at).id === second.id;
    const { seen, acted } = await walk('back', secondSlots, () => move(slot, first));
    expect(acted).toBe(true);
    expect(keys.filter((key) => !seen.has(key))).toEqual([]);
  });

  it('starts a node again when the slot its cursor stands on moves mid-scan', async () => {
    const [, second, third] = bySweep() as [ClusterNode, ClusterNode, ClusterNode];
    const slot = lowestSlot(third);
    const keys = await writeKeys('under', tagFor(slot), 100);
    const midThird = (at: number, midway: boolean) => at === slot && midway;
    const { seen, acted } = await walk('under', midThird, () => move(slot, second));
    expect(acted).toBe(true);
    expect(keys.filter((key) => !seen.has(key))).toEqual([]);
  });

  it('starts a node again on its promoted replica when it fails over mid-scan', async () => {
    const [, second] = bySweep() as [ClusterNode, ClusterNode];
    const slot = lowestSlot(second);
    const keys = await writeKeys('promoted', tagFor(slot), 150);
    const midSecond = (at: number, midway: boolean) => at === slot && midway;
    const { seen, acted } = await walk('promoted', midSecond, async () => {
      await cluster.failover(second);
      // The demoted node answers MOVED: the client has the promoted replica at once.
      await client().get(`${tagFor(slot)}probe`);
    });
    expect(acted).toBe(true);
    expect(keys.filter((key) => !seen.has(key))).toEqual([]);
  });
});
