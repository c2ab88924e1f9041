// Sorted set helpers against a real server: scores are numbers (±Infinity included) whether they
// arrive as RESP3 doubles or RESP2 strings, and scored ranges have the same shape in both.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { itRunsOnProtocol, PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('sorted set helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol, flushBeforeEach: true });

  async function seed(): Promise<void> {
    await redis.zadd('z', [
      { member: 'a', score: 1 },
      { member: 'b', score: 2.5 },
      { member: 'c', score: 3 },
      { member: 'top', score: Number.POSITIVE_INFINITY },
      { member: 'bottom', score: Number.NEGATIVE_INFINITY },
    ]);
  }

  itRunsOnProtocol(redis, protocol);

  it('adds with conditions and reads scores, ranks and counts', async () => {
    await seed();
    expect(await redis.zscore('z', 'b')).toBe(2.5);
    expect(await redis.zscore('z', 'top')).toBe(Number.POSITIVE_INFINITY);
    expect(await redis.zscore('z', 'bottom')).toBe(Number.NEGATIVE_INFINITY);
    expect(await redis.zscore('z', 'missing')).toBeNull();
    expect(await redis.zscore('missing', 'a')).toBeNull();
    expect(await redis.zmscore('z', ['a', 'missing', 'top'])).toEqual([1, null, Number.POSITIVE_INFINITY]);
    expect(await redis.zadd('z', { member: 'a', score: 10 }, { NX: true })).toBe(0);
    expect(await redis.zadd('z', { member: 'a', score: 0 }, { GT: true, CH: true })).toBe(0);
    expect(await redis.zadd('z', { member: 'a', score: 0.5 }, { LT: true, CH: true })).toBe(1);
    expect(await redis.zadd('z', { member: 'new', score: 1 }, { XX: true })).toBe(0);
    expect(await redis.zrank('z', 'a')).toBe(1);
    expect(await redis.zrevrank('z', 'a')).toBe(3);
    expect(await redis.zrank('z', 'missing')).toBeNull();
    expect(await redis.zcard('z')).toBe(5);
    expect(await redis.zcard('missing')).toBe(0);
    expect(await redis.zcount('z', 1, '+inf')).toBe(3);
    expect(await redis.zcount('z', '(0.5', 3)).toBe(2);
    expect(await redis.zcount('z', Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)).toBe(5);
  });

  it('increments scores', async () => {
    expect(await redis.zincrby('z', 2.5, 'm')).toBe(2.5);
    expect(await redis.zincrby('z', Number.POSITIVE_INFINITY, 'm')).toBe(Number.POSITIVE_INFINITY);
    expect(await redis.zaddIncr('z', 'n', 1.25)).toBe(1.25);
    expect(await redis.zaddIncr('z', 'n', 1, { NX: true })).toBeNull();
    expect(await redis.zaddIncr('z', 'n', 1, { XX: true })).toBe(2.25);
  });

  it('reads ranges by index, score and lex, with and without scores', async () => {
    await seed();
    expect(await redis.zrange('z', 0, -1)).toEqual(['bottom', 'a', 'b', 'c', 'top']);
    expect(await redis.zrange('z', 0, 1, { REV: true })).toEqual(['top', 'c']);
    expect(await redis.zrange('z', 1, 2, { WITHSCORES: true })).toEqual([
      { member: 'a', score: 1 },
      { member: 'b', score: 2.5 },
    ]);
    expect(await redis.zrange('z', 0, 0, { WITHSCORES: true, REV: true })).toEqual([
      { member: 'top', score: Number.POSITIVE_INFINITY },
    ]);
    expect(await redis.zrange('z', '(1', 3, { BYSCORE: true })).toEqual(['b', 'c']);
    expect(
      await redis.zrange('z', '+inf', 2, { BYSCORE: true, REV: true, LIMIT: { offset: 1, count: 1 } }),
    ).toEqual(['c']);
    expect(await redis.zrange('z', '-inf', 1, { BYSCORE: true, WITHSCORES: true })).toEqual([
      { member: 'bottom', score: Number.NEGATIVE_INFINITY },
      { member: 'a', score: 1 },
    ]);
    await redis.zadd(
      'lex',
      ['x', 'y', 'z'].map((member) => ({ member, score: 0 })),
    );
    expect(await redis.zrange('lex', '[y', '+', { BYLEX: true })).toEqual(['y', 'z']);
    expect(await redis.zrange('lex', '-', '(z', { BYLEX: true, LIMIT: { offset: 0, count: 1 } })).toEqual([
      'x',
    ]);
    expect(await redis.zrangebyscore('z', 1, 3)).toEqual(['a', 'b', 'c']);
    expect(
      await redis.zrangebyscore('z', '-inf', '+inf', { WITHSCORES: true, LIMIT: { offset: 4, count: -1 } }),
    ).toEqual([{ member: 'top', score: Number.POSITIVE_INFINITY }]);
    expect(await redis.zrange('missing', 0, -1)).toEqual([]);
    expect(await redis.zrange('missing', 0, -1, { WITHSCORES: true })).toEqual([]);
  });

  it('removes members and score ranges', async () => {
    await seed();
    expect(await redis.zrem('z', 'a')).toBe(1);
    expect(await redis.zrem('z', ['b', 'missing'])).toBe(1);
    expect(await redis.zremrangebyscore('z', '-inf', '(3')).toBe(1);
    expect(await redis.zrange('z', 0, -1)).toEqual(['c', 'top']);
  });

  it('pops lowest and highest members', async () => {
    await seed();
    expect(await redis.zpopmin('z')).toEqual({ member: 'bottom', score: Number.NEGATIVE_INFINITY });
    expect(await redis.zpopmax('z')).toEqual({ member: 'top', score: Number.POSITIVE_INFINITY });
    expect(await redis.zpopmin('z', 1)).toEqual([{ member: 'a', score: 1 }]);
    expect(await redis.zpopmax('z', 5)).toEqual([
      { member: 'c', score: 3 },
      { member: 'b', score: 2.5 },
    ]);
    expect(await redis.zpopmin('z')).toBeNull();
    expect(await redis.zpopmax('z', 2)).toEqual([]);
  });

  it('blocks on a dedicated connection for BZPOPMIN/BZPOPMAX', async () => {
    const waiting = redis.bzpopmin(['z1', 'z2'], 0);
    expect(await redis.zadd('z2', { member: 'm', score: 4.5 })).toBe(1);
    expect(await waiting).toEqual({ key: 'z2', member: 'm', score: 4.5 });
    await redis.zadd('z3', [
      { member: 'lo', score: 1 },
      { member: 'hi', score: 9 },
    ]);
    expect(await redis.bzpopmax('z3', 0.01)).toEqual({ key: 'z3', member: 'hi', score: 9 });
    expect(await redis.bzpopmin('empty', 0.01)).toBeNull();
    expect(await redis.bzpopmax(['empty'], 0.01)).toBeNull();
  });

  it('rejects bad options and arguments without sending anything', async () => {
    await redis.send(['CONFIG', 'RESETSTAT']);
    const configuration: [Promise<unknown>, string][] = [
      [redis.zadd('z', { member: 'a', score: 1 }, { NX: true, XX: true }), 'zadd.XX'],
      [redis.zadd('z', { member: 'a', score: 1 }, { GT: true, LT: true }), 'zadd.LT'],
      [redis.zadd('z', { member: 'a', score: 1 }, { INCR: true } as never), 'zadd.INCR'],
      [redis.zrange('z', 0, 1, { BYSCORE: true, BYLEX: true }), 'zrange.BYLEX'],
      [redis.zrange('z', '-', '+', { BYLEX: true, WITHSCORES: true }), 'zrange.WITHSCORES'],
      [redis.zrange('z', 0, 1, { BYSCORE: true, LIMIT: { offset: -1, count: 1 } }), 'zrange.LIMIT.offset'],
      [redis.zrange('z', 0, 1.5), 'zrange.stop'],
    ];
    for (const [promise, option] of configuration) {
      await expect(promise).rejects.toBeInstanceOf(RespireConfigurationError);
      await expect(promise).rejects.toMatchObject({ option });
    }
    await expect(redis.zadd('z', { member: 'a', score: Number.NaN })).rejects.toThrow('zadd: score');
    await expect(redis.zadd('z', [])).rejects.toThrow('zadd: members');
    await expect(redis.zadd('z', ['a'] as never)).rejects.toThrow('{ member, score }');
    await expect(redis.zincrby('z', Number.NaN, 'a')).rejects.toThrow('increment');
    await expect(redis.zrange('z', 0, 1, { LIMIT: { offset: 0, count: 1 } })).rejects.toThrow('LIMIT needs');
    await expect(redis.zrange('z', '', '+', { BYLEX: true })).rejects.toThrow('lexical bound');
    await expect(redis.zcount('z', Number.NaN, 1)).rejects.toThrow('min');
    await expect(redis.zpopmin('z', -1)).rejects.toThrow('count');
    await expect(redis.bzpopmin('z', -1)).rejects.toThrow('timeoutSeconds');
    await expect(redis.zmscore('z', [])).rejects.toThrow(TypeError);
    await expect(redis.zrem('z', [])).rejects.toThrow('zrem');
    expect(await redis.dbsize()).toBe(0);
    // Nothing reached the server but the statistics reset and DBSIZE.
    const { commandstats } = await redis.infoSections('commandstats');
    expect(Object.keys(commandstats ?? {}).sort()).toEqual(['cmdstat_config|resetstat', 'cmdstat_dbsize']);
  });

  it('keeps binary members as Buffers with returnBuffers, scores as numbers', () =>
    withBufferClient(server, protocol, async (binary) => {
      const bytes = Buffer.from([0xff, 0x00]);
      await binary.zadd('z', { member: bytes, score: -0.5 });
      expect(await binary.zscore('z', bytes)).toBe(-0.5);
      expect(await binary.zrange('z', 0, -1, { WITHSCORES: true })).toEqual([{ member: bytes, score: -0.5 }]);
      expect(await binary.zpopmin('z')).toEqual({ member: bytes, score: -0.5 });
    }));
});
