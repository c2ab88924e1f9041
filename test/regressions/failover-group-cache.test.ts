// Client-side caching on a failover group whose members set `clientSideCache`. The group client
// read uncached: every member still opened its tracking connections, which served no read of the
// group client (its reads always went to the server). It now reads through the active member's
// cache, which that member's tracking connections invalidate: hits are answered without a send,
// a write by another client is seen, the group client's own writes are read back at once, and a
// switch changes caches, so a value of one deployment is never answered while another is active.
import { describe, expect, it } from 'vitest';
import { outcomeWithin } from '../client/support.js';
import { readsValue, useGroups, withClient } from '../failover/support.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

/** GET calls a server executed since its last CONFIG RESETSTAT. */
async function getCalls(port: number): Promise<number> {
  const stats = await withClient(port, (client) => client.send(['INFO', 'commandstats']));
  return Number(/cmdstat_get:calls=(\d+)/.exec(String(stats))?.[1] ?? 0);
}

async function resetStats(port: number): Promise<void> {
  await withClient(port, (client) => client.send(['CONFIG', 'RESETSTAT']));
}

describe('a failover group whose members cache', () => {
  it("reads through the active member's cache, coherent with that member, across switches", async () => {
    await withClient(east.port, (client) => client.set('fg:cache', 'east'));
    await withClient(west.port, (client) => client.set('fg:cache', 'west'));
    const group = await groups.connect(
      { east: east.port, west: west.port },
      { failbackDelay: 600_000, member: { clientSideCache: { maxEntries: 100 } } },
    );
    await resetStats(east.port);
    expect(await group.client.get('fg:cache')).toBe('east');
    expect(await group.client.get('fg:cache')).toBe('east');
    expect(await group.client.get('fg:cache')).toBe('east');
    expect(await getCalls(east.port)).toBe(1);
    expect(group.client.cacheStats?.hits).toBe(2);

    // Another client's write reaches the cache through east's tracking connection.
    await withClient(east.port, (client) => client.set('fg:cache', 'east-2'));
    await readsValue(group, 'fg:cache', 'east-2');

    group.switchTo('west');
    await resetStats(west.port);
    expect(await group.client.get('fg:cache')).toBe('west');
    expect(await group.client.get('fg:cache')).toBe('west');
    expect(await getCalls(west.port)).toBe(1);
    // The group client's own write is read back at once (read your writes).
    await group.client.set('fg:cache', 'mine');
    expect(await group.client.get('fg:cache')).toBe('mine');
    await withClient(west.port, (client) => client.set('fg:cache', 'west-2'));
    await readsValue(group, 'fg:cache', 'west-2');

    // Back on east: its own value, never west's.
    group.switchTo('east');
    expect(await group.client.get('fg:cache')).toBe('east-2');
    await withClient(east.port, (client) => client.set('fg:cache', 'east-3'));
    await readsValue(group, 'fg:cache', 'east-3');
  });
});

describe('a cache miss a failover switch moves', () => {
  it("is answered by the new member and never stored in the old member's cache", async () => {
    await withClient(east.port, (client) => client.set('fg:moved-read', 'east'));
    await withClient(west.port, (client) => client.set('fg:moved-read', 'west'));
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: east.port } });
    try {
      const group = await groups.connect(
        { east: proxy.port, west: west.port },
        { failbackDelay: 600_000, member: { clientSideCache: { maxEntries: 100 }, acquireTimeout: 30_000 } },
      );
      const eastMember = group.members[0]!;
      const eastNode = [...eastMember.client!.nodes][0]!;
      await proxy.setMode('refuse');
      await proxy.closeAllConnections();
      await waitUntil(
        'east without a connection',
        async () => (eastNode.main.current === undefined ? true : 'connected'),
        { timeoutMs: 5_000 },
      );
      // A miss of east's cache, queued on east, then moved to west by the switch.
      const read = group.client.get('fg:moved-read');
      group.switchTo('west');
      expect(await outcomeWithin(read, 5_000)).toEqual({ value: 'west' });

      await proxy.setMode('pass');
      await waitUntil(
        'east healthy and connected again',
        async () => (eastMember.available && eastNode.main.current !== undefined ? true : 'not yet'),
        { timeoutMs: 10_000 },
      );
      group.switchTo('east');
      expect(await group.client.get('fg:moved-read')).toBe('east');
    } finally {
      await proxy.stop();
    }
  });
});
