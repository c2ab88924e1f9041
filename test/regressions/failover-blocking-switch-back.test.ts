// A blocking command still waiting for its dedicated connection when the group switches moves to
// the new member once the wait ends (failover-blocking-opening.test.ts). The destination was fixed
// at the switch: when the group switched again before the wait ended (a failback, a manual switch
// back), the command still went to the member of the first switch, no longer active, and blocked
// there while the group's commands went elsewhere. It now goes to the member active when its wait
// ends, and stays where it is when that is its own member again.
import { describe, expect, it } from 'vitest';
import { outcomeWithin } from '../client/support.js';
import { useGroups, withClient } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

async function blockedOn(port: number): Promise<boolean> {
  return withClient(port, async (client) =>
    /blocked_clients:1/.test(String(await client.send(['INFO', 'clients']))),
  );
}

describe('a blocking command waiting for its connection over two switches', () => {
  it('stays on its member when the group is back on it before the wait ends', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const popped = group.client.blpop(['fg:back'], 0);
    group.switchTo('west');
    group.switchTo('east');
    await waitUntil(
      'a client blocked on east or west',
      async () => ((await blockedOn(east.port)) || (await blockedOn(west.port)) ? true : 'none yet'),
      { timeoutMs: 5_000 },
    );
    expect(await blockedOn(east.port)).toBe(true);
    await withClient(east.port, (client) => client.rpush('fg:back', ['east']));
    expect(await outcomeWithin(popped, 3_000)).toEqual({ value: { key: 'fg:back', element: 'east' } });
  });
});
