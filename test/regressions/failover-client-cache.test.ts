// Client-side caching on a failover group: the group client kept a cache of its own, filled by its
// reads, but the invalidations of the members' tracking connections went to the members' own
// caches, never to it: a key written by another client was read stale for good, on the active
// member and after a switch alike. The group client now reads through the active member's own
// cache, which that member's tracking connections invalidate (failover-group-cache.test.ts).
import { describe, expect, it } from 'vitest';
import { readsValue, useGroups, withClient } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('a failover group with client-side caching', () => {
  it('reads what the active member holds, before and after a switch', async () => {
    await withClient(east.port, (client) => client.set('fg:cached', 'east'));
    await withClient(west.port, (client) => client.set('fg:cached', 'west'));
    const group = await groups.connect(
      { east: east.port, west: west.port },
      { failbackDelay: 600_000, member: { clientSideCache: { maxEntries: 100 } } },
    );
    expect(await group.client.get('fg:cached')).toBe('east');
    expect(await group.client.get('fg:cached')).toBe('east');
    await withClient(east.port, (client) => client.set('fg:cached', 'east-2'));
    await readsValue(group, 'fg:cached', 'east-2');
    group.switchTo('west');
    await readsValue(group, 'fg:cached', 'west');
    // And it stays coherent with west: a write there is seen.
    await withClient(west.port, (client) => client.set('fg:cached', 'west-2'));
    await readsValue(group, 'fg:cached', 'west-2');
  });
});
