// A blocking command runs on a dedicated connection that the node opens (or borrows) for it. A
// failover switch moved the old member's unwritten commands and the blocking ones held while it
// was unreachable, but not one still waiting for its dedicated connection: it was written on the
// old member after the switch and waited there, for a push that came to the member the group
// had moved to (issue 14 "Switching": commands not yet accepted by the old member move).
import { describe, expect, it } from 'vitest';
import { outcomeWithin } from '../client/support.js';
import { useGroups, withClient } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('a blocking command waiting for its connection when the group switches', () => {
  it('moves to the new member', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const popped = group.client.blpop(['fg:queue'], 0);
    group.switchTo('west');
    await waitUntil(
      'a client blocked on east or west',
      async () => {
        const blocked = await Promise.all(
          [east.port, west.port].map((port) =>
            withClient(port, async (client) =>
              /blocked_clients:1/.test(String(await client.send(['INFO', 'clients']))),
            ),
          ),
        );
        return blocked.some(Boolean) ? true : 'none yet';
      },
      { timeoutMs: 5_000 },
    );
    await withClient(west.port, (client) => client.rpush('fg:queue', ['moved']));
    expect(await outcomeWithin(popped, 3_000)).toEqual({ value: { key: 'fg:queue', element: 'moved' } });
  });
});
