// Stream helpers against a real server: entries are `{ id, fields }` and XREAD/XREADGROUP give the
// same `{ key, entries }` list from RESP3's map and RESP2's array.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { itRunsOnProtocol, PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('stream helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol, flushBeforeEach: true });

  /** Waits, one INFO round trip at a time, until `count` clients are blocked on the server. */
  async function blockedClients(count: number): Promise<void> {
    for (let round = 0; round < 10_000; round++) {
      if (Number((await redis.infoSections('clients')).clients?.blocked_clients) >= count) return;
    }
    throw new Error(`fewer than ${count} blocked clients`);
  }

  itRunsOnProtocol(redis, protocol);

  it('adds entries and reads them back as { id, fields }', async () => {
    expect(await redis.xadd('s', '1-1', { f: 'v', n: 1 })).toBe('1-1');
    expect(await redis.xadd('s', '2-0', [['名前', '値']])).toBe('2-0');
    const auto = await redis.xadd('s', '*', new Map([['k', 'v']]));
    expect(auto).toMatch(/^\d+-\d+$/);
    expect(await redis.xlen('s')).toBe(3);
    expect(await redis.xlen('missing')).toBe(0);
    expect(await redis.xrange('s', '-', '2-0')).toEqual([
      { id: '1-1', fields: { f: 'v', n: '1' } },
      { id: '2-0', fields: { 名前: '値' } },
    ]);
    expect(await redis.xrange('s', '(1-1', '+', { COUNT: 1 })).toEqual([
      { id: '2-0', fields: { 名前: '値' } },
    ]);
    expect(await redis.xrevrange('s', '+', '-', { COUNT: 1 })).toEqual([{ id: auto, fields: { k: 'v' } }]);
    expect(await redis.xrange('missing', '-', '+')).toEqual([]);
    expect(await redis.xadd('missing', '*', { a: 'b' }, { NOMKSTREAM: true })).toBeNull();
    expect(await redis.exists('missing')).toBe(0);
  });

  it('trims on add and with XTRIM, exactly and approximately', async () => {
    for (let i = 1; i <= 5; i++) await redis.xadd('s', `${i}-0`, { i });
    expect(await redis.xadd('s', '6-0', { i: 6 }, { MAXLEN: 3 })).toBe('6-0');
    expect(await redis.xlen('s')).toBe(3);
    expect(await redis.xtrim('s', { MINID: '5-0' })).toBe(1);
    expect(await redis.xtrim('s', { MAXLEN: 100, APPROXIMATE: true, LIMIT: 10 })).toBe(0);
    expect(await redis.xadd('s', '7-0', { i: 7 }, { MINID: '6-0', APPROXIMATE: true })).toBe('7-0');
    expect(await redis.xdel('s', ['5-0', '9-9'])).toBe(1);
    expect(await redis.xdel('s', '6-0')).toBe(1);
    expect(await redis.xrange('s', '-', '+')).toEqual([{ id: '7-0', fields: { i: '7' } }]);
  });

  it('reads several streams, leaving out those without news, null when none has any', async () => {
    await redis.xadd('a', '1-0', { x: '1' });
    await redis.xadd('a', '2-0', { x: '2' });
    await redis.xadd('b', '1-0', { y: '1' });
    expect(
      await redis.xread(
        [
          { key: 'a', id: '0' },
          { key: 'b', id: '1-0' },
          { key: 'c', id: '0' },
        ],
        { COUNT: 1 },
      ),
    ).toEqual([{ key: 'a', entries: [{ id: '1-0', fields: { x: '1' } }] }]);
    expect(await redis.xread({ key: 'b', id: '0' })).toEqual([
      { key: 'b', entries: [{ id: '1-0', fields: { y: '1' } }] },
    ]);
    expect(await redis.xread({ key: 'a', id: '$' })).toBeNull();
  });

  it('blocks on a dedicated connection with BLOCK, and times out with null', async () => {
    await redis.xadd('s', '1-0', { old: '1' });
    const waiting = redis.xread({ key: 's', id: '$' }, { BLOCK: 0 });
    // '$' means "after the last entry when the server runs XREAD": add only once it is blocked.
    await blockedClients(1);
    await redis.xadd('s', '2-0', { fresh: '1' });
    expect(await waiting).toEqual([{ key: 's', entries: [{ id: '2-0', fields: { fresh: '1' } }] }]);
    expect(await redis.xread({ key: 's', id: '$' }, { BLOCK: 10 })).toBeNull();
  });

  it('runs consumer groups: create, read, acknowledge, pending summary, destroy', async () => {
    await redis.xadd('s', '1-0', { n: '1' });
    await redis.xadd('s', '2-0', { n: '2' });
    expect(await redis.xgroupCreate('s', 'g', '0')).toBe('OK');
    await expect(redis.xgroupCreate('s', 'g', '0')).rejects.toMatchObject({ code: 'BUSYGROUP' });
    expect(await redis.xgroupCreate('fresh', 'g', '$', { MKSTREAM: true, ENTRIESREAD: 0 })).toBe('OK');
    expect(await redis.xgroupCreateConsumer('s', 'g', 'c2')).toBe(true);
    expect(await redis.xgroupCreateConsumer('s', 'g', 'c2')).toBe(false);
    expect(await redis.xpending('s', 'g')).toEqual({ count: 0, minId: null, maxId: null, consumers: [] });
    const read = await redis.xreadgroup('g', 'c1', { key: 's', id: '>' }, { COUNT: 2 });
    expect(read).toEqual([
      {
        key: 's',
        entries: [
          { id: '1-0', fields: { n: '1' } },
          { id: '2-0', fields: { n: '2' } },
        ],
      },
    ]);
    expect(await redis.xreadgroup('g', 'c1', { key: 's', id: '>' })).toBeNull();
    expect(await redis.xpending('s', 'g')).toEqual({
      count: 2,
      minId: '1-0',
      maxId: '2-0',
      consumers: [{ name: 'c1', pending: 2 }],
    });
    expect(await redis.xdel('s', '1-0')).toBe(1);
    expect(await redis.xreadgroup('g', 'c1', [{ key: 's', id: '0' }])).toEqual([
      {
        key: 's',
        entries: [
          { id: '1-0', fields: null },
          { id: '2-0', fields: { n: '2' } },
        ],
      },
    ]);
    expect(await redis.xack('s', 'g', ['1-0', '2-0', '3-0'])).toBe(2);
    expect(await redis.xack('s', 'g', '1-0')).toBe(0);
    expect(await redis.xgroupDelConsumer('s', 'g', 'c1')).toBe(0);
    expect(await redis.xgroupDestroy('s', 'g')).toBe(true);
    expect(await redis.xgroupDestroy('s', 'g')).toBe(false);
  });

  it('blocks XREADGROUP with BLOCK, and honours NOACK', async () => {
    await redis.xgroupCreate('s', 'g', '$', { MKSTREAM: true });
    const waiting = redis.xreadgroup('g', 'c', { key: 's', id: '>' }, { BLOCK: 0, NOACK: true });
    await redis.xadd('s', '5-0', { v: 'x' });
    expect(await waiting).toEqual([{ key: 's', entries: [{ id: '5-0', fields: { v: 'x' } }] }]);
    expect((await redis.xpending('s', 'g')).count).toBe(0);
    expect(await redis.xreadgroup('g', 'c', { key: 's', id: '>' }, { BLOCK: 10 })).toBeNull();
  });

  it('rejects bad options and arguments without sending anything', async () => {
    await redis.send(['CONFIG', 'RESETSTAT']);
    const configuration: [Promise<unknown>, string][] = [
      [redis.xadd('s', '*', { a: 'b' }, { MAXLEN: 1, MINID: '0' }), 'xadd.MINID'],
      [redis.xadd('s', '*', { a: 'b' }, { MAXLEN: -1 }), 'xadd.MAXLEN'],
      [redis.xadd('s', '*', { a: 'b' }, { maxlen: 1 } as never), 'xadd.maxlen'],
      [redis.xread({ key: 's', id: '0' }, { BLOCK: -1 }), 'xread.BLOCK'],
      [redis.xreadgroup('g', 'c', { key: 's', id: '>' }, { COUNT: 1.5 }), 'xreadgroup.COUNT'],
      [redis.xrange('s', '-', '+', { COUNT: -1 }), 'xrange.COUNT'],
      [redis.xgroupCreate('s', 'g', '$', { ENTRIESREAD: -2 }), 'xgroupCreate.ENTRIESREAD'],
    ];
    for (const [promise, option] of configuration) {
      await expect(promise).rejects.toBeInstanceOf(RespireConfigurationError);
      await expect(promise).rejects.toMatchObject({ option });
    }
    await expect(redis.xadd('s', '*', {})).rejects.toThrow('xadd: at least one');
    await expect(redis.xadd('s', '', { a: 'b' })).rejects.toThrow('xadd: id');
    await expect(redis.xadd('s', '*', { a: 'b' }, { MAXLEN: 1, LIMIT: 5 })).rejects.toThrow(
      'LIMIT needs APPROXIMATE',
    );
    await expect(redis.xadd('s', '*', { a: 'b' }, { APPROXIMATE: true })).rejects.toThrow(
      'need MAXLEN or MINID',
    );
    await expect(redis.xtrim('s', {})).rejects.toThrow('xtrim: MAXLEN or MINID is required');
    await expect(redis.xread([])).rejects.toThrow('xread: streams');
    await expect(redis.xdel('s', [])).rejects.toThrow('xdel');
    await expect(redis.xack('s', 'g', [])).rejects.toThrow('xack');
    expect(await redis.dbsize()).toBe(0);
    // Nothing reached the server but the statistics reset and DBSIZE.
    const { commandstats } = await redis.infoSections('commandstats');
    expect(Object.keys(commandstats ?? {}).sort()).toEqual(['cmdstat_config|resetstat', 'cmdstat_dbsize']);
  });

  it('keeps binary field values and stream keys as Buffers with returnBuffers', () =>
    withBufferClient(server, protocol, async (binary) => {
      const bytes = Buffer.from([0xde, 0xad, 0x00]);
      expect(await binary.xadd('s', '1-0', { f: bytes })).toBe('1-0');
      expect(await binary.xrange('s', '-', '+')).toEqual([{ id: '1-0', fields: { f: bytes } }]);
      expect(await binary.xread({ key: 's', id: '0' })).toEqual([
        { key: Buffer.from('s'), entries: [{ id: '1-0', fields: { f: bytes } }] },
      ]);
    }));
});
