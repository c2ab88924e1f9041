// Regression (README "Failover group": commands the old member never wrote move to the new member).
// `importHash` chose its node when the import was made, not when it ran: an import made while east
// was active and run after a switch to west wrote every chunk to east, the deployment the group had
// left, though nothing of it had been sent before the switch. The import now finds its node when
// `run()` first sends (and keeps it from then on: import transactions stay on their connection).
// And an import running when the group switched went on writing its later transactions to the
// member the group had left (a replacing import even renamed its hash into place there, and
// `run()` succeeded with nothing on the active member); the group's WATCH sessions end on a switch,
// and so does such an import now, before its next transaction.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { outcome } from '../client/support.js';
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

describe('a hash import running when the failover group switches', () => {
  it('ends before its next transaction instead of writing to the member the group left', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    await withClient(east.port, (client) => client.hset('fg-import:running', { old: '1' }));
    async function* entries(): AsyncGenerator<[string, string]> {
      for (let i = 0; i < 30; i++) {
        if (i === 20) group.switchTo('west');
        yield [`f${i}`, `v${i}`];
      }
    }
    const job = group.client.importHash('fg-import:running', entries(), { chunkFields: 10, replace: true });
    const { error } = await outcome(job.run());
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as Error).message).toMatch(
      /importHash: the failover group switched away from .* after 1 transactions/,
    );
    expect(job.resumable).toBe(false);
    // East keeps its old hash (the replacing import's temporary key is deleted); west has nothing.
    expect(await withClient(east.port, (client) => client.hgetall('fg-import:running'))).toEqual({
      old: '1',
    });
    await expect
      .poll(() => withClient(east.port, (client) => client.send(['KEYS', '*respire-import*'])))
      .toEqual([]);
    expect(await withClient(west.port, (client) => client.exists('fg-import:running'))).toBe(0);
  });
});
