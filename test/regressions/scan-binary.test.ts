// Regression (issue 19 #10): the SCAN family turned every key, member, field and value into a UTF-8
// string even on a client with `returnBuffers`, so binary data came back corrupted (invalid UTF-8
// becomes U+FFFD) and `del(scannedKey)` deleted nothing. With `returnBuffers` they stay Buffers,
// byte for byte; the cursor stays a string either way.
import { describe, expect, it } from 'vitest';
import { type RedisCommands, RespireClient } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();

// Not valid UTF-8: a string round trip turns these bytes into U+FFFD.
const BINARY_KEY = Buffer.from([0x62, 0x69, 0x6e, 0x3a, 0xff, 0xfe, 0x00, 0x80]);
const MEMBER = Buffer.from([0xc3, 0x28, 0x01]);
const FIELD = Buffer.from([0xe2, 0x82]);
const VALUE = Buffer.from([0xf0, 0x90, 0x28]);

async function binaryClient(protocol: 2 | 3): Promise<RespireClient> {
  return RespireClient.connect({
    endpoints: [{ host: server.host, port: server.port }],
    protocol,
    returnBuffers: true,
  });
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

describe.each([3, 2] as const)('SCAN family with returnBuffers, RESP%i', (protocol) => {
  it('returns binary keys, members, fields and values byte for byte', async () => {
    const client = await binaryClient(protocol);
    const redis = client as unknown as RedisCommands<Buffer>;
    try {
      await client.flushdb();
      await client.send(['SET', BINARY_KEY, 'v']);
      await client.send(['SADD', 'bin:set', MEMBER]);
      await client.send(['HSET', 'bin:hash', FIELD, VALUE]);
      await client.send(['ZADD', 'bin:zset', '2.5', MEMBER]);

      const page = await client.scan(0, { match: 'bin:*', count: 1000 });
      expect(page.cursor).toBe('0');
      expect(page.keys).toContainEqual(BINARY_KEY);
      const keys = await collect(client.scanIterator({ count: 1000 }));
      expect(keys).toContainEqual(BINARY_KEY);

      expect((await client.sscan('bin:set', 0)).members).toEqual([MEMBER]);
      expect(await collect(client.sscanIterator('bin:set'))).toEqual([MEMBER]);
      expect((await client.hscan('bin:hash', 0)).entries).toEqual([[FIELD, VALUE]]);
      expect(await collect(client.hscanIterator('bin:hash'))).toEqual([[FIELD, VALUE]]);
      expect((await client.zscan('bin:zset', 0)).entries).toEqual([[MEMBER, 2.5]]);
      expect(await collect(client.zscanIterator('bin:zset'))).toEqual([[MEMBER, 2.5]]);

      // What SCAN returned names the key: deleting it deletes it.
      const scanned = keys.find((key) => Buffer.compare(key as unknown as Buffer, BINARY_KEY) === 0)!;
      expect(await redis.del(scanned)).toBe(1);
      expect(await redis.exists(BINARY_KEY)).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('still returns strings without returnBuffers', async () => {
    const client = await RespireClient.connect({
      endpoints: [{ host: server.host, port: server.port }],
      protocol,
    });
    try {
      await client.flushdb();
      await client.send(['HSET', 'text:hash', 'f', 'v']);
      expect(await client.scan('0')).toEqual({ cursor: '0', keys: ['text:hash'] });
      expect(await collect(client.hscanIterator('text:hash'))).toEqual([['f', 'v']]);
    } finally {
      await client.close();
    }
  });
});
