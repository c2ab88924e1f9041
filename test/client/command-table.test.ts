// The generated command table and its lookups, checked against the live server: the committed
// data equals what `npm run gen:commands` would write, and commandKeys agrees with COMMAND GETKEYS.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandRows, DATA_FILE, renderDataFile, serverVersionOf } from '../../scripts/gen-commands.js';
import { commandKeys, specKeys } from '../../src/client/command-keys.js';
import { COMMAND_TABLE_SERVER_VERSION } from '../../src/client/command-table.data.js';
import { type CommandSpec, commandSpec, commandTable } from '../../src/client/command-table.js';
import { isBlockingCommand } from '../../src/client/command-traits.js';
import { isReadOnlyCommand } from '../../src/client/read-only-commands.js';
import { RespireClient, RespireServerError } from '../../src/index.js';
import type { RespArgument } from '../../src/resp/encoder.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
let redis: RespireClient;
beforeAll(async () => {
  redis = await RespireClient.connect({ endpoints: [`${server.host}:${server.port}`] });
});
afterAll(() => redis.close());

/** The keys COMMAND GETKEYS names, or null when it refuses (no keys, bad arity, bad arguments). */
async function serverKeys(args: RespArgument[]): Promise<string[] | null> {
  try {
    return (await redis.send(['COMMAND', 'GETKEYS', ...args])) as string[];
  } catch (error) {
    if (error instanceof RespireServerError) return null;
    throw error;
  }
}

function keysAt(args: readonly RespArgument[], indexes: readonly number[]): string[] {
  return indexes.map((index) => String(args[index]));
}

describe('the generated table', () => {
  it('is what gen:commands writes for this server', async () => {
    const version = serverVersionOf(await redis.send(['INFO', 'server']));
    expect(version, 'the table came from another server version: run npm run gen:commands').toBe(
      COMMAND_TABLE_SERVER_VERSION,
    );
    const rendered = renderDataFile(commandRows(await redis.send(['COMMAND'])), version);
    expect(rendered === readFileSync(DATA_FILE, 'utf8'), 'regenerate with npm run gen:commands').toBe(true);
  });

  it('reads the same rows from a RESP2 connection', async () => {
    const resp2 = await RespireClient.connect({ endpoints: [`${server.host}:${server.port}`], protocol: 2 });
    try {
      const rows2 = commandRows(await resp2.send(['COMMAND']));
      const rows3 = commandRows(await redis.send(['COMMAND']));
      expect(renderDataFile(rows2, '0')).toBe(renderDataFile(rows3, '0'));
    } finally {
      await resp2.close();
    }
  });

  it('looks commands and subcommands up in any case', () => {
    const set = commandSpec('SeT')!;
    expect(set).toMatchObject({ name: 'set', arity: -3, firstKey: 1, lastKey: 1, keyStep: 1 });
    expect([...set.flags]).toEqual(['write', 'denyoom']);
    expect(set.aclCategories).toContain('string');
    expect(set.keySpecs[0]).toEqual({
      flags: ['RW', 'access', 'update', 'variable_flags'],
      beginSearch: { type: 'index', index: 1 },
      findKeys: { type: 'range', lastKey: 0, keyStep: 1, limit: 0 },
    });
    expect(commandSpec('client', 'KILL')).toMatchObject({ name: 'client|kill', arity: -3 });
    expect(commandSpec('client')!.subcommands!.size).toBeGreaterThan(10);
    expect(commandSpec('client', 'nope')).toBeUndefined();
    expect(commandSpec('nope')).toBeUndefined();
    expect(commandSpec('get', 'x')).toBeUndefined();
  });

  it('carries key specs of every kind, movablekeys and policy tips', () => {
    const xread = commandSpec('xread')!;
    expect(xread.flags.has('movablekeys')).toBe(true);
    expect(xread.keySpecs[0]!.beginSearch).toEqual({ type: 'keyword', keyword: 'STREAMS', startFrom: 1 });
    expect(xread.keySpecs[0]!.findKeys).toEqual({ type: 'range', lastKey: -1, keyStep: 1, limit: 2 });
    expect(commandSpec('eval')!.keySpecs[0]!.findKeys).toEqual({
      type: 'keynum',
      keyNumIndex: 0,
      firstKey: 1,
      keyStep: 1,
    });
    expect(commandSpec('sort')!.keySpecs[2]!.beginSearch).toEqual({ type: 'unknown' });
    expect(commandSpec('migrate')!.keySpecs[1]!.flags).toContain('incomplete');
    expect(commandSpec('spublish')!.keySpecs[0]!.flags).toContain('not_key');
    expect(commandSpec('dbsize')).toMatchObject({ requestPolicy: 'all_shards', responsePolicy: 'agg_sum' });
    expect(commandSpec('mget')).toMatchObject({ requestPolicy: 'multi_shard', responsePolicy: undefined });
    expect(commandSpec('get')).toMatchObject({ requestPolicy: undefined, tips: [] });
    expect(commandSpec('subscribe')!.flags.has('pubsub')).toBe(true);
  });
});

describe('isBlockingCommand', () => {
  it('follows the blocking flag, BLOCK for XREAD/XREADGROUP, and WAIT/WAITAOF', () => {
    const flagged = [...commandTable().values()].filter((spec) => spec.flags.has('blocking'));
    expect(flagged.map((spec) => spec.name).sort()).toEqual([
      'blmove',
      'blmpop',
      'blpop',
      'brpop',
      'brpoplpush',
      'bzmpop',
      'bzpopmax',
      'bzpopmin',
      'xread',
      'xreadgroup',
    ]);
    for (const spec of flagged) {
      if (spec.name.startsWith('x')) continue;
      expect(isBlockingCommand([spec.name.toUpperCase(), 'k', '0']), spec.name).toBe(true);
    }
    expect(isBlockingCommand(['XREAD', 'STREAMS', 's', '0'])).toBe(false);
    expect(isBlockingCommand(['xread', 'block', '0', 'STREAMS', 's', '$'])).toBe(true);
    expect(isBlockingCommand(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '10', 'STREAMS', 's', '>'])).toBe(
      true,
    );
    // A stream, group or count value that reads "block" is not the option.
    expect(isBlockingCommand(['XREAD', 'COUNT', '1', 'STREAMS', 'block', '0'])).toBe(false);
    expect(isBlockingCommand(['XREADGROUP', 'GROUP', 'block', 'block', 'STREAMS', 's', '>'])).toBe(false);
    expect(isBlockingCommand(['XREAD', 'COUNT', 'block', 'STREAMS', 's', '0'])).toBe(false);
    expect(isBlockingCommand(['XREAD', 'COUNT', '1', 'BLOCK', '5', 'STREAMS', 's', '0'])).toBe(true);
    expect(isBlockingCommand(['WAIT', '1', '0'])).toBe(true);
    expect(isBlockingCommand(['WaitAof', '1', '0', '0'])).toBe(true);
  });

  it('says no to everything else, including non-string names', () => {
    for (const name of ['GET', 'BITCOUNT', 'B', 'XADD', 'WATCH', '', '1', '{', 'ÿ', 'blpo']) {
      expect(isBlockingCommand([name, 'k']), name).toBe(false);
    }
    expect(isBlockingCommand([Buffer.from('BLPOP'), 'k', '0'])).toBe(false);
    expect(isBlockingCommand([])).toBe(false);
  });
});

describe('isReadOnlyCommand', () => {
  it('follows the readonly flag, per subcommand, plus keyless queries', () => {
    for (const args of [
      ['GET', 'k'],
      ['zrange', 'z', 0, -1],
      ['OBJECT', 'ENCODING', 'k'],
      ['XINFO', 'STREAM', 's'],
      ['PING'],
      ['INFO'],
      ['TIME'],
      [Buffer.from('MGET'), 'a'],
    ]) {
      expect(isReadOnlyCommand(args), String(args[0])).toBe(true);
    }
    for (const args of [
      ['SET', 'k', 'v'],
      ['CLIENT', 'KILL', 'x'],
      ['OBJECT'],
      ['EVAL', 's', 0],
      ['PUBLISH', 'c', 'm'],
      ['NOPE'],
      [],
    ]) {
      expect(isReadOnlyCommand(args), String(args[0])).toBe(false);
    }
  });
});

/** Command lines that exercise every begin_search/find_keys form, subcommands and the odd specs. */
const KEY_CASES: RespArgument[][] = [
  ['GET', 'k'],
  ['SET', 'k', 'v', 'GET'],
  ['MSET', 'a', '1', 'b', '2', 'c', '3'],
  ['MSET', 'a', '1', 'b'],
  ['MGET', 'a', 'b', 'c'],
  ['DEL', 'a', 'b'],
  ['RENAME', 'a', 'b'],
  ['LMOVE', 'a', 'b', 'LEFT', 'RIGHT'],
  ['BLPOP', 'a', 'b', '0'],
  ['BLMPOP', '0', '2', 'a', 'b', 'LEFT'],
  ['LMPOP', '1', 'a', 'RIGHT', 'COUNT', '2'],
  ['ZUNIONSTORE', 'dest', '2', 'a', 'b', 'WEIGHTS', '1', '2'],
  ['ZINTERCARD', '2', 'a', 'b', 'LIMIT', '1'],
  ['ZDIFF', '2', 'a', 'b', 'WITHSCORES'],
  ['ZUNIONSTORE', 'dest', '0', 'x'],
  ['ZUNIONSTORE', 'dest', 'two', 'x'],
  ['SINTERCARD', '3', 'a', 'b', 'c'],
  ['EVAL', 'return 1', '2', 'k1', 'k2', 'a1'],
  ['EVAL', 'return 1', '0'],
  ['EVALSHA_RO', 'abc', '1', 'k1'],
  ['FCALL', 'f', '1', 'k', 'arg'],
  ['XREAD', 'COUNT', '2', 'STREAMS', 'a', 'b', 'c', '0', '0', '0'],
  ['xread', 'block', '0', 'streams', 'a', '$'],
  ['XREAD', 'STREAMS', 'a', 'b', '0'],
  ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'a', 'b', '>', '>'],
  ['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM'],
  ['XINFO', 'STREAM', 's', 'FULL'],
  ['OBJECT', 'ENCODING', 'k'],
  ['MEMORY', 'USAGE', 'k'],
  ['MIGRATE', 'h', '1', 'k', '0', '5000'],
  ['MIGRATE', 'h', '1', '', '0', '5000', 'COPY', 'KEYS', 'a', 'b'],
  ['MIGRATE', 'h', '1', '', '0', '5000', 'AUTH', 'KEYS', 'KEYS', 'a'],
  ['MIGRATE', 'h', '1', '', '0', '5000', 'AUTH2', 'KEYS', 'pw', 'KEYS', 'a'],
  ['SORT', 'list', 'BY', 'w_*', 'STORE', 'out'],
  ['SORT', 'list', 'LIMIT', '0', '1', 'GET', 'STORE', 'STORE', 'a', 'STORE', 'b'],
  ['SORT_RO', 'list', 'BY', 'x', 'GET', '#'],
  ['GEORADIUS', 'k', '1', '2', '3', 'm', 'STORE', 'd', 'STOREDIST', 'e'],
  ['GEOSEARCHSTORE', 'dst', 'src', 'FROMMEMBER', 'm', 'BYRADIUS', '1', 'm'],
  ['BITOP', 'AND', 'dest', 'a', 'b'],
  ['PFMERGE', 'dest', 'a', 'b'],
  ['SMOVE', 'a', 'b', 'm'],
  ['BZMPOP', '1', '2', 'a', 'b', 'MIN'],
  ['COPY', 'a', 'b', 'DB', '1'],
  ['RPOPLPUSH', 'a', 'b'],
  ['TOUCH', 'a', 'b', 'c'],
  ['WATCH', 'a', 'b'],
  ['OBJECT', 'HELP'],
  ['PING'],
  ['CLIENT', 'KILL', 'x'],
  ['SPUBLISH', 'ch', 'msg'],
  ['GET'],
  [Buffer.from('get'), Buffer.from('binary')],
];

describe('commandKeys', () => {
  it('agrees with COMMAND GETKEYS on a broad sample', async () => {
    const replies = await Promise.all(KEY_CASES.map(serverKeys));
    KEY_CASES.forEach((args, i) => {
      const ours = commandKeys(args);
      const label = args.map(String).join(' ');
      expect(ours, label).toBeDefined();
      // Where the server refuses (keyless, malformed), the table reports no keys either.
      expect(keysAt(args, ours!), label).toEqual(replies[i] ?? []);
    });
    expect(replies.filter((reply) => reply !== null && reply.length > 1).length).toBeGreaterThan(25);
  });

  it('agrees with COMMAND GETKEYS on a sweep of every command and subcommand', async () => {
    const lines: RespArgument[][] = [];
    for (const spec of commandTable().values()) {
      for (const sub of spec.subcommands?.values() ?? [spec]) {
        const words = sub.name.split('|');
        const minimum = Math.abs(sub.arity);
        for (let extra = 0; extra <= (sub.arity < 0 ? 4 : 0); extra++) {
          const length = minimum + extra;
          const filler = (i: number) => (i % 2 === 0 ? '1' : `k${i}`);
          lines.push([...words, ...Array.from({ length: length - words.length }, (_, i) => filler(i))]);
          lines.push([...words, ...Array.from({ length: length - words.length }, (_, i) => `k${i}`)]);
        }
      }
    }
    const replies = await Promise.all(lines.map(serverKeys));
    let compared = 0;
    lines.forEach((args, i) => {
      const reply = replies[i];
      if (reply === null || reply === undefined) return;
      compared++;
      const ours = commandKeys(args);
      expect(ours === undefined ? undefined : keysAt(args, ours), args.join(' ')).toEqual(reply);
    });
    expect(compared).toBeGreaterThan(300);
  });

  it('reports shard channels only when asked, and nothing for unknown commands', () => {
    expect(commandKeys(['SPUBLISH', 'ch', 'm'])).toEqual([]);
    expect(commandKeys(['SPUBLISH', 'ch', 'm'], { includeNotKeys: true })).toEqual([1]);
    expect(commandKeys(['SSUBSCRIBE', 'a', 'b'], { includeNotKeys: true })).toEqual([1, 2]);
    expect(commandKeys(['NOPE', 'k'])).toBeUndefined();
    expect(commandKeys(['CLIENT', 'NOPE'])).toBeUndefined();
    expect(commandKeys([])).toBeUndefined();
  });

  it('cannot tell for unknown or incomplete specs of commands it has no reader for', () => {
    const base = commandSpec('get')!;
    const oddSpec = (flags: string[], beginSearch: CommandSpec['keySpecs'][number]['beginSearch']) =>
      ({
        ...base,
        name: 'odd',
        arity: -2,
        keySpecs: [base.keySpecs[0]!, { flags, beginSearch, findKeys: base.keySpecs[0]!.findKeys }],
      }) satisfies CommandSpec;
    expect(specKeys(oddSpec(['RO'], { type: 'index', index: 2 }), ['ODD', 'a', 'b'])).toEqual([1, 2]);
    expect(specKeys(oddSpec(['RO'], { type: 'unknown' }), ['ODD', 'a', 'b'])).toBeUndefined();
    expect(
      specKeys(oddSpec(['RO', 'incomplete'], { type: 'index', index: 2 }), ['ODD', 'a', 'b']),
    ).toBeUndefined();
    const unknownFind = {
      ...base,
      keySpecs: [{ ...base.keySpecs[0]!, findKeys: { type: 'unknown' as const } }],
    };
    expect(specKeys(unknownFind, ['GET', 'a'])).toBeUndefined();
  });
});
