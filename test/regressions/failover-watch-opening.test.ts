// A failover switch ends the WATCH sessions of the old member (issue 14 "Switching": WATCH
// sessions of the old member end with a clear error), but a watch() still borrowing its
// connection when the group switched was not among them yet: it became a session on the old
// member after the switch, and its transaction then ran there, on a member the group had left.
// Now a connection being borrowed on the member the group left is given back unused and the
// watch() fails, nothing sent (endpoint-node.ts leave()).
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { useGroups, withClient } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('a watch() under way when the group switches', () => {
  it('runs no transaction on the member the group left', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const opening = group.client.watch(['fg:watched']);
    group.switchTo('west');
    const outcome = await opening.then(
      async (session) => {
        const tx = session.multi();
        tx.set('fg:watched', 'committed');
        return { value: await tx.exec() };
      },
      (error: unknown) => ({ error }),
    );
    expect(await withClient(east.port, (client) => client.get('fg:watched'))).toBeNull();
    expect('error' in outcome && outcome.error).toBeInstanceOf(RespireConnectionError);
    expect((outcome as { error: Error }).error.message).toMatch(
      /switched from east to west.*nothing was sent/,
    );
  });
});
