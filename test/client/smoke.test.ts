import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

describe('RespireClient against a real redis-server', () => {
  const server = useRedisServer();

  it('connects, pipelines and closes', async () => {
    const redis = await RespireClient.connect({ endpoints: [{ host: server.host, port: server.port }] });
    expect(await redis.ping()).toBe('PONG');
    expect(await redis.set('greeting', 'hello')).toBe('OK');
    expect(await redis.get('greeting')).toBe('hello');
    const values = await Promise.all(Array.from({ length: 1000 }, () => redis.send(['INCR', 'n'])));
    expect(values[999]).toBe(1000);
    expect(await redis.send(['OBJECT', 'ENCODING', 'greeting'])).toBe('embstr');
    await expect(redis.send(['LPUSH', 'greeting', 'x'])).rejects.toMatchObject({ code: 'WRONGTYPE' });
    await redis.close();
    await expect(redis.get('greeting')).rejects.toMatchObject({
      name: 'RespireConnectionError',
      written: false,
    });
  });

  it('runs a blocking command on a dedicated connection without stalling the pipeline', async () => {
    const redis = await RespireClient.connect({ endpoints: [`${server.host}:${server.port}`] });
    const popped = redis.send(['BLPOP', 'queue', '0']);
    expect(await redis.ping()).toBe('PONG');
    await redis.send(['RPUSH', 'queue', 'job']);
    expect(await popped).toEqual(['queue', 'job']);
    const controller = new AbortController();
    const blocked = redis.send(['BLPOP', 'empty', '0'], { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(blocked).rejects.toThrow('stop');
    expect(await redis.get('missing')).toBeNull();
    await redis.close();
  });
});
