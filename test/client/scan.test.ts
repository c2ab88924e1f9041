// The SCAN family against a real redis-server in RESP3 and RESP2: every key seen (SCAN may repeat,
// so the test dedupes and compares sets), MATCH/TYPE/COUNT, hash/set/sorted-set iterators, and
// aborting mid-iteration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const KEY_COUNT = 3000;

describe.each([3, 2] as const)('SCAN family over RESP%i', (protocol) => {
  const server = useRedisServer();
  let redis: RespireClient;
  const keys = Array.from({ length: KEY_COUNT }, (_, i) => `key:${i}`);

  beforeAll(async () => {
    redis = await RespireClient.connect({ endpoints: [`${server.host}:${server.port}`], protocol });
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < KEY_COUNT; i += 500) {
      writes.push(redis.send(['MSET', ...keys.slice(i, i + 500).flatMap((key) => [key, 'v'])]));
    }
    const fields = Array.from({ length: 500 }, (_, i) => [`f${i}`, `v${i}`]).flat();
    writes.push(redis.send(['HSET', 'hash', ...fields]));
    writes.push(redis.send(['SADD', 'set', ...Array.from({ length: 500 }, (_, i) => `m${i}`)]));
    writes.push(redis.send(['ZADD', 'zset', '-inf', 'low', '1.5', 'mid', '+inf', 'high', '-2', 'neg']));
    await Promise.all(writes);
  });

  afterAll(async () => {
    await redis?.close();
  });

  it('visits every key exactly once after dedupe, with MATCH and COUNT', async () => {
    const seen: string[] = [];
    for await (const key of redis.scanIterator({ match: 'key:*', count: 100 })) seen.push(key);
    expect(seen.length).toBeGreaterThanOrEqual(KEY_COUNT);
    expect(new Set(seen)).toEqual(new Set(keys));
  });

  it('filters by TYPE', async () => {
    const seen = new Set<string>();
    for await (const key of redis.scanIterator({ type: 'hash', count: 1000 })) seen.add(key);
    expect(seen).toEqual(new Set(['hash']));
  });

  it('walks the cursor by hand with scan()', async () => {
    const seen = new Set<string>();
    let cursor = '0';
    let calls = 0;
    do {
      const page = await redis.scan(cursor, { match: 'key:1*', count: 200 });
      for (const key of page.keys) seen.add(key);
      cursor = page.cursor;
      calls++;
    } while (cursor !== '0');
    expect(calls).toBeGreaterThan(1);
    expect(seen).toEqual(new Set(keys.filter((key) => key.startsWith('key:1'))));
  });

  it('iterates hash fields, set members and sorted-set scores', async () => {
    const fields = new Map<string, string>();
    for await (const [field, value] of redis.hscanIterator('hash', { count: 50 })) fields.set(field, value);
    expect(fields.size).toBe(500);
    expect(fields.get('f0')).toBe('v0');
    expect(fields.get('f499')).toBe('v499');

    const members = new Set<string>();
    for await (const member of redis.sscanIterator('set', { match: 'm1*' })) members.add(member);
    expect(members).toEqual(
      new Set(Array.from({ length: 500 }, (_, i) => `m${i}`).filter((m) => m.startsWith('m1'))),
    );

    const scores = new Map<string, number>();
    for await (const [member, score] of redis.zscanIterator('zset')) scores.set(member, score);
    expect(scores).toEqual(
      new Map([
        ['low', Number.NEGATIVE_INFINITY],
        ['neg', -2],
        ['mid', 1.5],
        ['high', Number.POSITIVE_INFINITY],
      ]),
    );
    expect(await redis.zscan('zset', 0)).toMatchObject({ cursor: '0' });
    expect((await redis.hscan('missing', 0)).entries).toEqual([]);
    expect((await redis.sscan('set', '0', { count: 1000 })).members).toHaveLength(500);
  });

  it('stops with the abort reason mid-iteration', async () => {
    const controller = new AbortController();
    const reason = new Error('enough');
    let seen = 0;
    const walk = async (): Promise<void> => {
      for await (const _key of redis.scanIterator({ match: 'key:*', count: 10, signal: controller.signal })) {
        if (++seen === 25) controller.abort(reason);
      }
    };
    await expect(walk()).rejects.toBe(reason);
    expect(seen).toBe(25);
    // The connection is still usable and aligned.
    expect(await redis.get('key:7')).toBe('v');
  });

  it('rejects a pending page with the abort reason', async () => {
    const controller = new AbortController();
    const reason = new Error('stop now');
    const iterator = redis.scanIterator({ signal: controller.signal });
    const first = iterator.next();
    controller.abort(reason);
    await expect(first).rejects.toBe(reason);
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    const stopped = redis.hscanIterator('hash', { signal: AbortSignal.abort(reason) });
    await expect(stopped.next()).rejects.toBe(reason);
  });

  it('rejects a COUNT that is not a positive integer without sending', async () => {
    await expect(redis.scan(0, { count: 0 })).rejects.toBeInstanceOf(TypeError);
    await expect(redis.scanIterator({ count: 1.5 }).next()).rejects.toBeInstanceOf(TypeError);
  });
});
