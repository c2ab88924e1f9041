// Hash helpers against a real server, over RESP3 and RESP2: HGETALL becomes the same plain object
// from a RESP3 map and a RESP2 flat array.
import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../kit/vitest-redis.js';
import { itRunsOnProtocol, PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('hash helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol, flushBeforeEach: true });

  itRunsOnProtocol(redis, protocol);

  it('sets fields from a pair, an object, a Map or tuples', async () => {
    expect(await redis.hset('h', 'a', '1')).toBe(1);
    expect(await redis.hset('h', { a: 'one', b: 2 })).toBe(1);
    expect(await redis.hset('h', new Map([['c', '3']]))).toBe(1);
    expect(await redis.hset('h', [['d', '4']], { timeout: 1000 })).toBe(1);
    expect(await redis.hgetall('h')).toEqual({ a: 'one', b: '2', c: '3', d: '4' });
    expect(await redis.hsetnx('h', 'a', 'x')).toBe(false);
    expect(await redis.hsetnx('h', 'e', 'x')).toBe(true);
  });

  it('reads fields, with null for missing ones and {} for a missing key', async () => {
    await redis.hset('h', { f: 'v', 'ü 日本': 'ß' });
    expect(await redis.hget('h', 'f')).toBe('v');
    expect(await redis.hget('h', 'missing')).toBeNull();
    expect(await redis.hget('missing', 'f')).toBeNull();
    expect(await redis.hmget('h', ['f', 'missing', 'ü 日本'])).toEqual(['v', null, 'ß']);
    expect(await redis.hmget('h', 'f')).toEqual(['v']);
    expect(await redis.hgetall('missing')).toEqual({});
    expect(await redis.hgetall('h')).toEqual({ f: 'v', 'ü 日本': 'ß' });
    expect((await redis.hkeys('h')).sort()).toEqual(['f', 'ü 日本']);
    expect((await redis.hvals('h')).sort()).toEqual(['v', 'ß']);
    expect(await redis.hkeys('missing')).toEqual([]);
    expect(await redis.hlen('h')).toBe(2);
    expect(await redis.hstrlen('h', 'ü 日本')).toBe(2);
    expect(await redis.hstrlen('h', 'missing')).toBe(0);
    expect(await redis.hexists('h', 'f')).toBe(true);
    expect(await redis.hexists('h', 'g')).toBe(false);
  });

  it('keeps a field named __proto__ as a plain own property', async () => {
    await redis.hset('h', [['__proto__', 'x']]);
    const all = await redis.hgetall('h');
    expect(Object.keys(all)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(all)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(all, '__proto__')?.value).toBe('x');
  });

  it('deletes and increments fields', async () => {
    await redis.hset('h', { a: '1', b: '2', c: '3' });
    expect(await redis.hdel('h', 'a')).toBe(1);
    expect(await redis.hdel('h', ['b', 'c', 'missing'])).toBe(2);
    expect(await redis.hincrby('h', 'n', 5)).toBe(5);
    expect(await redis.hincrby('h', 'n', -7)).toBe(-2);
    expect(await redis.hincrby('h', 'big', 2n ** 60n)).toBe(2n ** 60n);
    expect(await redis.hincrbyfloat('h', 'f', 0.5)).toBe(0.5);
    expect(await redis.hincrbyfloat('h', 'f', 1e3)).toBe(1000.5);
  });

  it('picks random fields, with and without values', async () => {
    expect(await redis.hrandfield('missing')).toBeNull();
    expect(await redis.hrandfield('missing', 2)).toEqual([]);
    expect(await redis.hrandfieldWithValues('missing', 2)).toEqual([]);
    await redis.hset('h', { a: '1', b: '2' });
    expect(['a', 'b']).toContain(await redis.hrandfield('h'));
    expect((await redis.hrandfield('h', 5)).sort()).toEqual(['a', 'b']);
    expect(await redis.hrandfield('h', -3)).toHaveLength(3);
    const withValues = await redis.hrandfieldWithValues('h', 2);
    expect(withValues.sort()).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('rejects bad arguments without sending anything', async () => {
    await redis.send(['CONFIG', 'RESETSTAT']);
    await expect(redis.hset('h', {})).rejects.toThrow('hset: at least one');
    await expect(redis.hset('h', [['only-name']] as never)).rejects.toThrow('[name, value]');
    await expect(redis.hset('h', 42 as never)).rejects.toThrow(TypeError);
    await expect(redis.hdel('h', [])).rejects.toThrow('hdel');
    await expect(redis.hmget('h', [])).rejects.toThrow('hmget');
    await expect(redis.hincrbyfloat('h', 'f', Number.POSITIVE_INFINITY)).rejects.toThrow('increment');
    await expect(redis.hrandfield('h', 1.5)).rejects.toThrow('count');
    await expect(redis.hrandfieldWithValues('h', Number.NaN)).rejects.toThrow('count');
    expect(await redis.dbsize()).toBe(0);
    // Nothing reached the server but the statistics reset and DBSIZE.
    const { commandstats } = await redis.infoSections('commandstats');
    expect(Object.keys(commandstats ?? {}).sort()).toEqual(['cmdstat_config|resetstat', 'cmdstat_dbsize']);
  });

  it('keeps binary values as Buffers with returnBuffers', () =>
    withBufferClient(server, protocol, async (binary) => {
      const bytes = Buffer.from([0x00, 0xff, 0xfe]);
      await binary.hset('h', 'field', bytes);
      expect(await binary.hget('h', 'field')).toEqual(bytes);
      expect(await binary.hgetall('h')).toEqual({ field: bytes });
      expect(await binary.hkeys('h')).toEqual([Buffer.from('field')]);
      expect(await binary.hrandfieldWithValues('h', 1)).toEqual([[Buffer.from('field'), bytes]]);
    }));
});
