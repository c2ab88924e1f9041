// Keyspace and expiry helpers against a real server, over RESP3 and RESP2.
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { itRunsOnProtocol, PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('key helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol, flushBeforeEach: true });

  itRunsOnProtocol(redis, protocol);

  it('deletes, unlinks, tests and touches one key or several', async () => {
    await redis.mset({ a: '1', b: '2', c: '3', d: '4' });
    expect(await redis.exists(['a', 'a', 'missing'])).toBe(2);
    expect(await redis.exists('b')).toBe(1);
    expect(await redis.touch(['a', 'b', 'missing'])).toBe(2);
    expect(await redis.del('a')).toBe(1);
    expect(await redis.del(['a', 'b', 'missing'])).toBe(1);
    expect(await redis.unlink(['c', 'd'])).toBe(2);
    expect(await redis.dbsize()).toBe(0);
  });

  it('sets, reads and removes expiry with NX/XX/GT/LT', async () => {
    await redis.set('k', 'v');
    expect(await redis.ttl('k')).toBe(-1);
    expect(await redis.ttl('missing')).toBe(-2);
    expect(await redis.pttl('missing')).toBe(-2);
    expect(await redis.expire('k', 100, { XX: true })).toBe(false);
    expect(await redis.expire('k', 100, { NX: true })).toBe(true);
    expect(await redis.expire('k', 50, { GT: true })).toBe(false);
    expect(await redis.expire('k', 50, { LT: true })).toBe(true);
    expect(await redis.ttl('k')).toBeLessThanOrEqual(50);
    expect(await redis.pexpire('k', 200_000, { XX: true, GT: true })).toBe(true);
    expect(await redis.pttl('k')).toBeGreaterThan(100_000);
    const at = Math.floor(Date.now() / 1000) + 500;
    expect(await redis.expireat('k', at)).toBe(true);
    expect(await redis.expiretime('k')).toBe(at);
    expect(await redis.pexpireat('k', at * 1000 + 7)).toBe(true);
    expect(await redis.pexpiretime('k')).toBe(at * 1000 + 7);
    expect(await redis.persist('k')).toBe(true);
    expect(await redis.persist('k')).toBe(false);
    expect(await redis.expire('missing', 10)).toBe(false);
    expect(await redis.expiretime('missing')).toBe(-2);
  });

  it('reports types', async () => {
    await redis.set('s', 'v');
    await redis.rpush('l', 'x');
    await redis.hset('h', 'f', 'v');
    await redis.sadd('set', 'm');
    await redis.zadd('z', { member: 'm', score: 1 });
    await redis.xadd('x', '*', { f: 'v' });
    const types = await Promise.all(
      ['s', 'l', 'h', 'set', 'z', 'x', 'missing'].map((key) => redis.type(key)),
    );
    expect(types).toEqual(['string', 'list', 'hash', 'set', 'zset', 'stream', 'none']);
  });

  it('renames and copies', async () => {
    await redis.set('a', '1');
    expect(await redis.rename('a', 'b')).toBe('OK');
    await expect(redis.rename('a', 'c')).rejects.toMatchObject({ name: 'RespireServerError', code: 'ERR' });
    await redis.set('c', '3');
    expect(await redis.renamenx('b', 'c')).toBe(false);
    expect(await redis.renamenx('b', 'd')).toBe(true);
    expect(await redis.copy('d', 'c')).toBe(false);
    expect(await redis.copy('d', 'c', { REPLACE: true })).toBe(true);
    expect(await redis.get('c')).toBe('1');
    expect(await redis.copy('d', 'd', { DB: 1 })).toBe(true);
    expect(await redis.copy('missing', 'e')).toBe(false);
    // SELECT is refused on the shared pipeline (lost on reconnect): a client of database 1 reads it.
    const db1 = await RespireClient.connect({
      endpoints: [{ host: server.host, port: server.port }],
      protocol,
      database: 1,
    });
    try {
      expect(await db1.get('d')).toBe('1');
      await db1.flushdb();
    } finally {
      await db1.close();
    }
  });

  it('picks a random key, or null from an empty database', async () => {
    expect(await redis.randomkey()).toBeNull();
    await redis.set('only', 'v');
    expect(await redis.randomkey()).toBe('only');
  });

  it('rejects bad options and arguments', async () => {
    const configuration: [Promise<unknown>, string][] = [
      [redis.expire('k', 1, { NX: true, XX: true }), 'expire.XX'],
      [redis.expire('k', 1, { GT: true, LT: true }), 'expire.LT'],
      [redis.pexpire('k', 1, { NX: true, GT: true }), 'pexpire.GT'],
      [redis.expire('k', 1, { nx: true } as never), 'expire.nx'],
      [redis.copy('a', 'b', { DB: -1 }), 'copy.DB'],
    ];
    for (const [promise, option] of configuration) {
      await expect(promise).rejects.toBeInstanceOf(RespireConfigurationError);
      await expect(promise).rejects.toMatchObject({ option });
    }
    await expect(redis.expire('k', 1.5)).rejects.toThrow('expire: time');
    await expect(redis.del([])).rejects.toThrow('del: keys must not be empty');
    await expect(redis.exists([])).rejects.toThrow(TypeError);
  });

  it('takes more keys than a spread call can pass', async () => {
    // push(...keys) overflows the stack at about 100k arguments; the helpers append one by one.
    const keys = Array.from({ length: 250_000 }, (_, i) => `k${i}`);
    await redis.set('k7', 'v');
    expect(await redis.exists(keys)).toBe(1);
    expect((await redis.mget(keys)).filter((value) => value !== null)).toEqual(['v']);
    expect(await redis.del(keys)).toBe(1);
    await redis.rpush('k9', 'x');
    expect(await redis.lmpop(keys, 'LEFT')).toEqual({ key: 'k9', elements: ['x'] });
  });

  it('returns binary keys as Buffers with returnBuffers', () =>
    withBufferClient(server, protocol, async (binary) => {
      const key = Buffer.from([0xfe, 0x00, 0x41]);
      await binary.set(key, 'v');
      expect(await binary.randomkey()).toEqual(key);
      expect(await binary.type(key)).toBe('string');
      expect(await binary.exists([key, key])).toBe(2);
    }));
});
