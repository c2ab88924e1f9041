// The Cluster client against a real 3-primary/3-replica cluster (issue 11 "Routing"): commands go to
// the slot's owner, multi-key commands split per slot and join as the server would answer, other
// cross-slot commands fail with CROSSSLOT before anything is sent, keyless ones follow their
// request-policy tip, and transactions, WATCH sessions and pub/sub run on the right node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RespireClient,
  RespireConfigurationError,
  RespireConnectionError,
  RespireServerError,
} from '../../src/index.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();

describe.each([3, 2] as const)('Cluster client (RESP%i)', (protocol) => {
  let redis: RespireClient;
  beforeAll(async () => {
    redis = await RespireClient.connect({ endpoints: [cluster.endpoints[0]!], useCluster: true, protocol });
    await redis.send(['FLUSHALL']);
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('writes each key on the primary that owns its slot', async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `route:${protocol}:${i}`);
    await Promise.all(keys.map((key, i) => redis.set(key, String(i))));
    for (const key of keys.slice(0, 20)) {
      const owner = await cluster.nodeFor(key);
      expect(await cluster.command(owner, ['GET', key])).toBe(String(keys.indexOf(key)));
    }
    expect(await Promise.all(keys.map((key) => redis.get(key)))).toEqual(keys.map((_, i) => String(i)));
  });

  it('splits MGET, MSET, DEL, EXISTS, TOUCH and UNLINK across slots and joins their replies', async () => {
    const keys = Array.from({ length: 10 }, (_, i) => `split:${protocol}:${i}`);
    expect(new Set(await Promise.all(keys.map((key) => cluster.keySlot(key)))).size).toBeGreaterThan(1);
    expect(await redis.send(['MSET', ...keys.flatMap((key, i) => [key, `v${i}`])])).toBe('OK');
    expect(await redis.send(['MGET', ...keys, 'split:missing'])).toEqual([
      ...keys.map((_, i) => `v${i}`),
      null,
    ]);
    expect(await redis.send(['EXISTS', ...keys, keys[0]!])).toBe(11);
    expect(await redis.send(['TOUCH', ...keys])).toBe(10);
    expect(await redis.send(['DEL', ...keys.slice(0, 5)])).toBe(5);
    expect(await redis.send(['UNLINK', ...keys])).toBe(5);
  });

  it('refuses other cross-slot commands with CROSSSLOT, sending nothing', async () => {
    const error = await redis.send(['SUNIONSTORE', 'x:a', 'x:b', 'x:c']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RespireServerError);
    expect((error as RespireServerError).code).toBe('CROSSSLOT');
    const tx = redis.multi();
    tx.set('tx:a', '1');
    tx.set('tx:b', '2');
    const txError = await tx.exec().catch((e: unknown) => e);
    expect((txError as RespireServerError).code).toBe('CROSSSLOT');
    expect(await redis.send(['EXISTS', 'tx:a', 'tx:b'])).toBe(0);
  });

  it('runs keyless commands by their request policy: DBSIZE sums, KEYS joins, PING answers', async () => {
    await redis.send(['FLUSHALL']);
    const keys = Array.from({ length: 30 }, (_, i) => `keyless:${protocol}:${i}`);
    await Promise.all(keys.map((key) => redis.set(key, '1')));
    expect(await redis.send(['DBSIZE'])).toBe(30);
    expect(((await redis.send(['KEYS', 'keyless:*'])) as string[]).sort()).toEqual([...keys].sort());
    expect(await redis.ping()).toBe('PONG');
  });

  it('runs a transaction and a WATCH session on the slot owner of their hash-tagged keys', async () => {
    const tx = redis.multi();
    tx.incr('{acct}:a');
    tx.incr('{acct}:b');
    expect(await tx.exec()).toEqual([1, 1]);
    const session = await redis.watch(['{acct}:a']);
    const watched = session.multi();
    watched.incr('{acct}:a');
    expect(await watched.exec()).toEqual([2]);
  });

  it('scanIterator walks every primary; scan cursors name the node and end with 0', async () => {
    await redis.send(['FLUSHALL']);
    const keys = Array.from({ length: 300 }, (_, i) => `scan:${protocol}:${i}`);
    await Promise.all(keys.map((key) => redis.set(key, '1')));
    const seen = new Set<string>();
    for await (const key of redis.scanIterator({ match: `scan:${protocol}:*`, count: 50 }))
      seen.add(String(key));
    expect([...seen].sort()).toEqual([...keys].sort());
    let cursor = '0';
    let pages = 0;
    const paged = new Set<string>();
    do {
      const page = await redis.scan(cursor, { count: 1000 });
      for (const key of page.keys) paged.add(String(key));
      cursor = page.cursor;
      pages++;
    } while (cursor !== '0' && pages < 100);
    expect(paged.size).toBe(300);
    expect(pages).toBeGreaterThanOrEqual(3);
  });

  it('delivers shard-channel and classic messages', async () => {
    const shard: string[] = [];
    const classic: string[] = [];
    await redis.ssubscribe(`news:${protocol}`, (message) => shard.push(String(message)));
    await redis.subscribe(`chat:${protocol}`, (message) => classic.push(String(message)));
    expect(await redis.send(['SPUBLISH', `news:${protocol}`, 'a'])).toBe(1);
    await redis.send(['PUBLISH', `chat:${protocol}`, 'b']);
    await expect.poll(() => [shard, classic]).toEqual([['a'], ['b']]);
    await redis.sunsubscribe();
    await redis.unsubscribe();
  });
});

describe('a shard channel whose slot moves', () => {
  it('is subscribed again on the new owner, and its messages keep coming', async () => {
    const redis = await RespireClient.connect({ endpoints: [cluster.endpoints[0]!], useCluster: true });
    try {
      const channel = 'moving:news';
      const seen: string[] = [];
      await redis.ssubscribe(channel, (message) => seen.push(String(message)));
      expect(await redis.send(['SPUBLISH', channel, 'before'])).toBe(1);
      await expect.poll(() => seen).toEqual(['before']);
      const slot = await cluster.keySlot(channel);
      const owner = cluster.ownerOf(slot);
      const target = cluster.primaries.find((primary) => primary.id !== owner.id)!;
      await cluster.migrateSlot(slot, target);
      // The old owner dropped the subscription (a sunsubscribe push); the client follows the slot.
      await expect
        .poll(async () => redis.send(['SPUBLISH', channel, 'after']), { timeout: 10_000, interval: 100 })
        .toBe(1);
      await expect.poll(() => seen.includes('after')).toBe(true);
    } finally {
      await redis.close();
    }
  });
});

describe('connecting', () => {
  it('names the seeds tried when none answers', async () => {
    const error = await RespireClient.connect({
      endpoints: ['127.0.0.1:1', '127.0.0.1:2'],
      useCluster: true,
      connectTimeout: 500,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as Error).message).toMatch(/127\.0\.0\.1:1.*127\.0\.0\.1:2/);
  });

  it('refuses database and standalone-only options with useCluster', async () => {
    for (const options of [{ database: 1 }, { readFrom: 'replica' as const, useCluster: false }]) {
      const error = await RespireClient.connect({
        endpoints: [cluster.endpoints[0]!],
        useCluster: true,
        ...options,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RespireConfigurationError);
    }
  });
});
