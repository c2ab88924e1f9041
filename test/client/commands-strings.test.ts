// String helpers against a real server, over RESP3 and RESP2: replies convert to the same values,
// missing keys give null, binary values round-trip with returnBuffers, bad options reject.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { itRunsOnProtocol, PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('string helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol, flushBeforeEach: true });

  itRunsOnProtocol(redis, protocol);

  it('gets and sets, with null for missing keys and UTF-8 text intact', async () => {
    expect(await redis.get('missing')).toBeNull();
    expect(await redis.set('k', 'héllo 日本 🎉')).toBe('OK');
    expect(await redis.get('k')).toBe('héllo 日本 🎉');
    expect(await redis.set('n', 42)).toBe('OK');
    expect(await redis.get('n')).toBe('42');
    expect(await redis.set('empty', '')).toBe('OK');
    expect(await redis.get('empty')).toBe('');
  });

  it('applies SET expiry and conditions', async () => {
    expect(await redis.set('k', 'v', { EX: 100 })).toBe('OK');
    expect(await redis.ttl('k')).toBeGreaterThan(90);
    expect(await redis.set('k', 'v', { PX: 50_000, XX: true })).toBe('OK');
    expect(await redis.pttl('k')).toBeGreaterThan(40_000);
    expect(await redis.set('k', 'w', { NX: true })).toBeNull();
    expect(await redis.set('k', 'w', { KEEPTTL: true })).toBe('OK');
    expect(await redis.pttl('k')).toBeGreaterThan(40_000);
    const at = Math.floor(Date.now() / 1000) + 1000;
    expect(await redis.set('at', 'v', { EXAT: at })).toBe('OK');
    expect(await redis.expiretime('at')).toBe(at);
    expect(await redis.set('pat', 'v', { PXAT: at * 1000 })).toBe('OK');
    expect(await redis.pexpiretime('pat')).toBe(at * 1000);
    expect(await redis.set('fresh', 'v', { XX: true })).toBeNull();
  });

  it('returns the old value with GET', async () => {
    expect(await redis.set('k', 'one', { GET: true })).toBeNull();
    const previous: string | null = await redis.set('k', 'two', { GET: true, EX: 10 });
    expect(previous).toBe('one');
    expect(await redis.set('k', 'three', { GET: true, NX: true })).toBe('two');
    expect(await redis.get('k')).toBe('two');
  });

  it('handles several keys at once', async () => {
    expect(await redis.mset({ a: '1', b: 2 })).toBe('OK');
    expect(await redis.mset([['c', '3']])).toBe('OK');
    expect(await redis.mset(new Map([['d', '4']]))).toBe('OK');
    expect(await redis.mget(['a', 'b', 'missing', 'c', 'd'])).toEqual(['1', '2', null, '3', '4']);
    expect(await redis.mget('a')).toEqual(['1']);
    expect(await redis.msetnx({ a: 'x', z: 'y' })).toBe(false);
    expect(await redis.exists('z')).toBe(0);
    expect(await redis.msetnx({ y: 'x', z: 'y' })).toBe(true);
    expect(await redis.setnx('y', 'again')).toBe(false);
    expect(await redis.setnx('w', 'new')).toBe(true);
  });

  it('counts, with bigints past the safe range', async () => {
    expect(await redis.incr('n')).toBe(1);
    expect(await redis.incrby('n', 9)).toBe(10);
    expect(await redis.decr('n')).toBe(9);
    expect(await redis.decrby('n', 10)).toBe(-1);
    expect(await redis.incrby('big', 2n ** 62n)).toBe(2n ** 62n);
    expect(await redis.incrbyfloat('f', 1.5)).toBe(1.5);
    expect(await redis.incrbyfloat('f', -0.25)).toBe(1.25);
    await expect(redis.incr('k-not-number-text')).resolves.toBe(1);
    await redis.set('text', 'abc');
    await expect(redis.incr('text')).rejects.toMatchObject({ code: 'ERR' });
  });

  it('appends, reads ranges and lengths', async () => {
    expect(await redis.append('s', 'Hello')).toBe(5);
    expect(await redis.append('s', ' 日本')).toBe(12);
    expect(await redis.strlen('s')).toBe(12);
    expect(await redis.strlen('missing')).toBe(0);
    expect(await redis.getrange('s', 0, 4)).toBe('Hello');
    expect(await redis.getrange('s', -6, -1)).toBe('日本');
    expect(await redis.getrange('missing', 0, 10)).toBe('');
    expect(await redis.setrange('s', 6, 'World!')).toBe(12);
    expect(await redis.get('s')).toBe('Hello World!');
  });

  it('gets and deletes, gets and changes expiry', async () => {
    await redis.set('k', 'v');
    expect(await redis.getdel('k')).toBe('v');
    expect(await redis.getdel('k')).toBeNull();
    await redis.set('k', 'v');
    expect(await redis.getex('k', { EX: 100 })).toBe('v');
    expect(await redis.ttl('k')).toBeGreaterThan(90);
    expect(await redis.getex('k', { PERSIST: true })).toBe('v');
    expect(await redis.ttl('k')).toBe(-1);
    expect(await redis.getex('k')).toBe('v');
    expect(await redis.getex('missing', { PX: 10 })).toBeNull();
  });

  it('rejects bad options and arguments without sending anything', async () => {
    await redis.send(['CONFIG', 'RESETSTAT']);
    const bad: [Promise<unknown>, string][] = [
      [redis.set('k', 'v', { EX: 0 }), 'set.EX'],
      [redis.set('k', 'v', { EX: 1.5 }), 'set.EX'],
      [redis.set('k', 'v', { EX: 1, PX: 1 }), 'set.PX'],
      [redis.set('k', 'v', { NX: true, XX: true }), 'set.XX'],
      [redis.set('k', 'v', { EX: 1, KEEPTTL: true }), 'set.KEEPTTL'],
      [redis.set('k', 'v', { ex: 10 } as never), 'set.ex'],
      [redis.set('k', 'v', { NX: 'yes' } as never), 'set.NX'],
      [redis.getex('k', { EX: 1, PERSIST: true }), 'getex.PERSIST'],
    ];
    for (const [promise, option] of bad) {
      await expect(promise).rejects.toBeInstanceOf(RespireConfigurationError);
      await expect(promise).rejects.toMatchObject({ option });
    }
    await expect(redis.mget([])).rejects.toThrow(TypeError);
    await expect(redis.mset({})).rejects.toThrow('mset');
    await expect(redis.incrbyfloat('f', Number.NaN)).rejects.toThrow('increment');
    await expect(redis.getrange('k', 0.5, 1)).rejects.toThrow('start');
    await expect(redis.setrange('k', -1, 'x')).rejects.toThrow('offset');
    await expect(redis.get(undefined as never)).rejects.toThrow(TypeError);
    expect(await redis.dbsize()).toBe(0);
    // Nothing reached the server but the statistics reset and DBSIZE.
    const { commandstats } = await redis.infoSections('commandstats');
    expect(Object.keys(commandstats ?? {}).sort()).toEqual(['cmdstat_config|resetstat', 'cmdstat_dbsize']);
  });

  it('passes per-command options next to the command options', async () => {
    const controller = new AbortController();
    controller.abort(new Error('not sent'));
    await expect(redis.set('k', 'v', { EX: 10, signal: controller.signal })).rejects.toThrow('not sent');
    expect(await redis.set('k', 'v', { EX: 10, timeout: 1000 })).toBe('OK');
    expect(await redis.exists('k')).toBe(1);
  });

  it('round-trips binary values as Buffers with returnBuffers', () =>
    withBufferClient(server, protocol, async (binary) => {
      const bytes = Buffer.from([0, 0xff, 0x0d, 0x0a, 0x80, 0xc3, 0x28]);
      expect(await binary.set(Buffer.from([1, 2]), bytes)).toBe('OK');
      const value = await binary.get(Buffer.from([1, 2]));
      expect(Buffer.isBuffer(value) && value.equals(bytes)).toBe(true);
      expect(await binary.set('k', bytes, { GET: true })).toBeNull();
      const [first, missing] = await binary.mget(['k', 'nope']);
      expect(first?.equals(bytes)).toBe(true);
      expect(missing).toBeNull();
      expect(await binary.incr('counter')).toBe(1);
      expect(await binary.getrange('k', 1, 1)).toEqual(Buffer.from([0xff]));
    }));
});
