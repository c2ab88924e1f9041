// List helpers against a real server, over RESP3 and RESP2, including the blocking pops, which
// must run on a dedicated connection without stalling the shared pipeline.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { itRunsOnProtocol, PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('list helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol, flushBeforeEach: true });

  itRunsOnProtocol(redis, protocol);

  it('pushes, reads and pops, with null and [] for missing keys', async () => {
    expect(await redis.rpush('l', ['a', 'b', 'c'])).toBe(3);
    expect(await redis.lpush('l', 'z')).toBe(4);
    expect(await redis.lpush('l', [1, 2])).toBe(6);
    expect(await redis.lrange('l', 0, -1)).toEqual(['2', '1', 'z', 'a', 'b', 'c']);
    expect(await redis.llen('l')).toBe(6);
    expect(await redis.lindex('l', -1)).toBe('c');
    expect(await redis.lindex('l', 99)).toBeNull();
    expect(await redis.lpop('l')).toBe('2');
    expect(await redis.rpop('l')).toBe('c');
    expect(await redis.lpop('l', 2)).toEqual(['1', 'z']);
    expect(await redis.rpop('l', 5)).toEqual(['b', 'a']);
    expect(await redis.lpop('l')).toBeNull();
    expect(await redis.lpop('l', 2)).toEqual([]);
    expect(await redis.rpop('missing', 1)).toEqual([]);
    expect(await redis.lrange('missing', 0, -1)).toEqual([]);
    expect(await redis.llen('missing')).toBe(0);
  });

  it('edits in place', async () => {
    await redis.rpush('l', ['a', 'b', 'a', 'c', 'a']);
    expect(await redis.lset('l', 1, 'B')).toBe('OK');
    await expect(redis.lset('l', 99, 'x')).rejects.toMatchObject({ code: 'ERR' });
    expect(await redis.lrem('l', -1, 'a')).toBe(1);
    expect(await redis.lrem('l', 0, 'a')).toBe(2);
    expect(await redis.lrange('l', 0, -1)).toEqual(['B', 'c']);
    expect(await redis.linsert('l', 'BEFORE', 'c', 'x')).toBe(3);
    expect(await redis.linsert('l', 'after' as 'AFTER', 'c', 'y')).toBe(4);
    expect(await redis.linsert('l', 'AFTER', 'nope', 'y')).toBe(-1);
    expect(await redis.linsert('missing', 'AFTER', 'c', 'y')).toBe(0);
    expect(await redis.ltrim('l', 1, 2)).toBe('OK');
    expect(await redis.lrange('l', 0, -1)).toEqual(['x', 'c']);
  });

  it('finds positions', async () => {
    await redis.rpush('l', ['a', 'b', 'a', 'c', 'a']);
    expect(await redis.lpos('l', 'a')).toBe(0);
    expect(await redis.lpos('l', 'a', { RANK: 2 })).toBe(2);
    expect(await redis.lpos('l', 'a', { RANK: -1 })).toBe(4);
    expect(await redis.lpos('l', 'zz')).toBeNull();
    expect(await redis.lpos('l', 'a', { COUNT: 0 })).toEqual([0, 2, 4]);
    expect(await redis.lpos('l', 'a', { COUNT: 2, MAXLEN: 3 })).toEqual([0, 2]);
    expect(await redis.lpos('l', 'zz', { COUNT: 1 })).toEqual([]);
  });

  it('moves and pops across lists', async () => {
    await redis.rpush('a', ['1', '2', '3']);
    expect(await redis.lmove('a', 'b', 'LEFT', 'RIGHT')).toBe('1');
    expect(await redis.lmove('missing', 'b', 'LEFT', 'LEFT')).toBeNull();
    expect(await redis.lmpop(['missing', 'a'], 'RIGHT')).toEqual({ key: 'a', elements: ['3'] });
    expect(await redis.lmpop('b', 'LEFT', { COUNT: 5 })).toEqual({ key: 'b', elements: ['1'] });
    expect(await redis.lmpop(['missing', 'b'], 'LEFT')).toBeNull();
  });

  it('blocks on a dedicated connection until data arrives, or times out with null', async () => {
    const popped = redis.blpop(['q1', 'q2'], 0);
    const moved = redis.blmove('q3', 'out', 'RIGHT', 'LEFT', 0);
    const multi = redis.blmpop(0, ['q4'], 'LEFT', { COUNT: 2 });
    // The shared pipeline keeps serving while three connections are blocked.
    expect(await redis.rpush('q2', 'job')).toBe(1);
    expect(await redis.rpush('q3', 'm')).toBe(1);
    expect(await redis.rpush('q4', ['x', 'y', 'z'])).toBe(3);
    expect(await popped).toEqual({ key: 'q2', element: 'job' });
    expect(await moved).toBe('m');
    expect(await multi).toEqual({ key: 'q4', elements: ['x', 'y'] });
    await redis.rpush('q5', ['a', 'b']);
    expect(await redis.brpop('q5', 0.01)).toEqual({ key: 'q5', element: 'b' });
    expect(await redis.blpop('empty', 0.01)).toBeNull();
    expect(await redis.brpop(['empty'], 0.01)).toBeNull();
    expect(await redis.blmove('empty', 'out', 'LEFT', 'LEFT', 0.01)).toBeNull();
    expect(await redis.blmpop(0.01, 'empty', 'RIGHT')).toBeNull();
  });

  it('lets a signal end a blocked pop', async () => {
    const controller = new AbortController();
    const blocked = redis.blpop('never', 0, { signal: controller.signal });
    expect(await redis.ping()).toBe('PONG');
    controller.abort(new Error('stop waiting'));
    await expect(blocked).rejects.toThrow('stop waiting');
  });

  it('rejects bad arguments without sending anything', async () => {
    await redis.send(['CONFIG', 'RESETSTAT']);
    await expect(redis.lpush('l', [])).rejects.toThrow('lpush: elements must not be empty');
    await expect(redis.lpop('l', -1)).rejects.toThrow('count');
    await expect(redis.linsert('l', 'AROUND' as never, 'a', 'b')).rejects.toThrow('BEFORE, AFTER');
    await expect(redis.lmove('a', 'b', 'UP' as never, 'LEFT')).rejects.toThrow('from');
    await expect(redis.blpop('l', -1)).rejects.toThrow('timeoutSeconds');
    await expect(redis.blpop([], 1)).rejects.toThrow('keys');
    await expect(redis.blmpop(Number.NaN, 'l', 'LEFT')).rejects.toThrow('timeoutSeconds');
    await expect(redis.lmpop('l', 'LEFT', { COUNT: 0 })).rejects.toBeInstanceOf(RespireConfigurationError);
    await expect(redis.lpos('l', 'a', { RANK: 0 })).rejects.toThrow('RANK');
    await expect(redis.lpos('l', 'a', { rank: 1 } as never)).rejects.toMatchObject({ option: 'lpos.rank' });
    expect(await redis.dbsize()).toBe(0);
    // Nothing reached the server but the statistics reset and DBSIZE.
    const { commandstats } = await redis.infoSections('commandstats');
    expect(Object.keys(commandstats ?? {}).sort()).toEqual(['cmdstat_config|resetstat', 'cmdstat_dbsize']);
  });

  it('keeps binary elements as Buffers with returnBuffers', () =>
    withBufferClient(server, protocol, async (binary) => {
      const bytes = Buffer.from([0xc0, 0x00, 0x0a]);
      await binary.rpush('l', [bytes, 'text']);
      expect(await binary.lrange('l', 0, -1)).toEqual([bytes, Buffer.from('text')]);
      expect(await binary.blpop('l', 0)).toEqual({ key: Buffer.from('l'), element: bytes });
    }));
});
