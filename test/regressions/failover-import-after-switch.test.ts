// Regression (README "Failover group": commands the old member never wrote move to the new member).
// `importHash` chose its node when the import was made, not when it ran: an import made while east
// was active and run after a switch to west wrote every chunk to east, the deployment the group had
// left, though nothing of it had been sent before the switch. The import now finds its node when
// `run()` first sends (and keeps it from then on: import transactions stay on their connection).
import { describe, expect, it } from 'vitest';
import { useGroups, withClient } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('a hash import made before a failover switch and run after it', () => {
  it('writes to the member active when it runs', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const job = group.client.importHash(
      'fg-import:h',
      [
        ['a', '1'],
        ['b', '2'],
      ],
      { chunkFields: 1, replace: true },
    );
    group.switchTo('west');
    expect(await job.run()).toEqual({ fields: 2, transactions: 2 });
    expect(await withClient(west.port, (client) => client.hgetall('fg-import:h'))).toEqual({
      a: '1',
      b: '2',
    });
    expect(await withClient(east.port, (client) => client.exists('fg-import:h'))).toBe(0);
  });
});
