import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

describe('withKeyPrefix', () => {
  const server = useRedisServer();
  let redis: RespireClient;
  beforeAll(async () => {
    redis = await RespireClient.connect({ endpoints: [{ host: server.host, port: server.port }] });
  });
  afterAll(async () => {
    await redis.close();
  });

  it('prefixes the keys of typed helpers and raw commands, not their other arguments', async () => {
    const app = redis.withKeyPrefix('app:');
    await app.set('greeting', 'hello');
    expect(await redis.get('app:greeting')).toBe('hello');
    expect(await redis.get('greeting')).toBeNull();
    await app.send(['MSET', 'a', '1', 'b', '2']);
    expect(await redis.send(['MGET', 'app:a', 'app:b'])).toEqual(['1', '2']);
    // EVAL: numkeys decides which arguments are keys.
    expect(await app.send(['EVAL', 'return {KEYS[1], ARGV[1]}', '1', 'k', 'v'])).toEqual(['app:k', 'v']);
    // Keyless commands pass through untouched.
    expect(await app.send(['ECHO', 'greeting'])).toBe('greeting');
  });

  it('adds nested prefixes and accepts Buffer prefixes and keys', async () => {
    const nested = redis.withKeyPrefix('a:').withKeyPrefix(Buffer.from('b:'));
    await nested.set(Buffer.from([0x6b, 0xff]), 'binary');
    expect(await redis.send(['GET', Buffer.from([0x61, 0x3a, 0x62, 0x3a, 0x6b, 0xff])])).toBe('binary');
  });

  it('refuses commands whose keys the table cannot locate, sending nothing', async () => {
    const app = redis.withKeyPrefix('app:');
    await expect(app.send(['NOSUCHCOMMAND', 'x'])).rejects.toBeInstanceOf(RespireConfigurationError);
    expect(() => redis.withKeyPrefix('')).toThrow(RespireConfigurationError);
    // A view checks a nested prefix as the client does.
    expect(() => app.withKeyPrefix('')).toThrow(RespireConfigurationError);
    expect(() => app.withKeyPrefix(7 as unknown as string)).toThrow(RespireConfigurationError);
  });
});
