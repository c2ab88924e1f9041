// Set helpers against a real server: members come back as arrays in RESP3 (a set type on the
// wire) and RESP2 (an array) alike.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { itRunsOnProtocol, PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('set helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol, flushBeforeEach: true });

  itRunsOnProtocol(redis, protocol);

  it('adds, removes and tests members', async () => {
    expect(await redis.sadd('s', ['a', 'b', 'a'])).toBe(2);
    expect(await redis.sadd('s', 'c')).toBe(1);
    expect(await redis.sadd('s', 7)).toBe(1);
    expect(await redis.srem('s', ['7', 'missing'])).toBe(1);
    const members = await redis.smembers('s');
    expect(Array.isArray(members)).toBe(true);
    expect(members.sort()).toEqual(['a', 'b', 'c']);
    expect(await redis.smembers('missing')).toEqual([]);
    expect(await redis.sismember('s', 'a')).toBe(true);
    expect(await redis.sismember('s', 'z')).toBe(false);
    expect(await redis.smismember('s', ['a', 'z', 'c'])).toEqual([true, false, true]);
    expect(await redis.scard('s')).toBe(3);
    expect(await redis.scard('missing')).toBe(0);
  });

  it('pops and samples members', async () => {
    await redis.sadd('s', ['a', 'b', 'c']);
    expect(['a', 'b', 'c']).toContain(await redis.srandmember('s'));
    expect((await redis.srandmember('s', 10)).sort()).toEqual(['a', 'b', 'c']);
    expect(await redis.srandmember('s', -5)).toHaveLength(5);
    expect(['a', 'b', 'c']).toContain(await redis.spop('s'));
    expect(await redis.spop('s', 5)).toHaveLength(2);
    expect(await redis.spop('s')).toBeNull();
    expect(await redis.spop('s', 2)).toEqual([]);
    expect(await redis.srandmember('s')).toBeNull();
    expect(await redis.srandmember('s', 3)).toEqual([]);
  });

  it('combines sets, with and without storing', async () => {
    await redis.sadd('x', ['1', '2', '3']);
    await redis.sadd('y', ['2', '3', '4']);
    expect((await redis.sinter(['x', 'y'])).sort()).toEqual(['2', '3']);
    expect((await redis.sunion(['x', 'y'])).sort()).toEqual(['1', '2', '3', '4']);
    expect(await redis.sdiff(['x', 'y'])).toEqual(['1']);
    expect((await redis.sdiff('x')).sort()).toEqual(['1', '2', '3']);
    expect(await redis.sinter(['x', 'missing'])).toEqual([]);
    expect(await redis.sinterstore('i', ['x', 'y'])).toBe(2);
    expect(await redis.sunionstore('u', ['x', 'y'])).toBe(4);
    expect(await redis.sdiffstore('d', ['y', 'x'])).toBe(1);
    expect(await redis.smembers('d')).toEqual(['4']);
    expect(await redis.sintercard(['x', 'y'])).toBe(2);
    expect(await redis.sintercard(['x', 'y'], { LIMIT: 1 })).toBe(1);
    expect(await redis.smove('x', 'y', '1')).toBe(true);
    expect(await redis.smove('x', 'y', '1')).toBe(false);
    expect(await redis.sismember('y', '1')).toBe(true);
  });

  it('rejects bad arguments without sending anything', async () => {
    await redis.send(['CONFIG', 'RESETSTAT']);
    await expect(redis.sadd('s', [])).rejects.toThrow('sadd: members must not be empty');
    await expect(redis.srem('s', [])).rejects.toThrow('srem');
    await expect(redis.sinter([])).rejects.toThrow('sinter');
    await expect(redis.sunionstore('d', [])).rejects.toThrow('sunionstore');
    await expect(redis.smismember('s', [])).rejects.toThrow(TypeError);
    await expect(redis.spop('s', -1)).rejects.toThrow('count');
    await expect(redis.srandmember('s', 0.5)).rejects.toThrow('count');
    await expect(redis.sintercard(['a'], { LIMIT: -1 })).rejects.toBeInstanceOf(RespireConfigurationError);
    await expect(redis.sintercard(['a'], { limit: 1 } as never)).rejects.toMatchObject({
      option: 'sintercard.limit',
    });
    expect(await redis.dbsize()).toBe(0);
    // Nothing reached the server but the statistics reset and DBSIZE.
    const { commandstats } = await redis.infoSections('commandstats');
    expect(Object.keys(commandstats ?? {}).sort()).toEqual(['cmdstat_config|resetstat', 'cmdstat_dbsize']);
  });

  it('keeps binary members as Buffers with returnBuffers', () =>
    withBufferClient(server, protocol, async (binary) => {
      const bytes = Buffer.from([0x80, 0x81]);
      await binary.sadd('s', bytes);
      expect(await binary.smembers('s')).toEqual([bytes]);
      expect(await binary.sismember('s', bytes)).toBe(true);
      expect(await binary.spop('s')).toEqual(bytes);
    }));
});
