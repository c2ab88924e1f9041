// Server and connection helpers against a real server, over RESP3 and RESP2.
import { describe, expect, it } from 'vitest';
import { parseInfo } from '../../src/client/commands/server.js';
import { RespireClient, RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { PROTOCOLS, useSharedClient, withBufferClient } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('server helpers over RESP%i', (protocol) => {
  const redis = useSharedClient(server, { protocol });

  it('pings and echoes', async () => {
    expect(await redis.ping()).toBe('PONG');
    expect(await redis.ping('hi 日本')).toBe('hi 日本');
    expect(await redis.echo('')).toBe('');
    expect(await redis.echo(Buffer.from('bytes'))).toBe('bytes');
    expect(await redis.ping({ timeout: 1000 })).toBe('PONG');
    expect(await redis.ping(Buffer.from('buffer'), { timeout: 1000 })).toBe('buffer');
    const aborted = AbortSignal.abort(new Error('never sent'));
    await expect(redis.ping({ signal: aborted })).rejects.toThrow('never sent');
    await expect(redis.info({ signal: aborted })).rejects.toThrow('never sent');
  });

  it('reads INFO as text and as sections', async () => {
    const text = await redis.info('server');
    expect(text).toMatch(/^# Server\r\n/);
    expect(text).toContain('redis_version:7.');
    expect(await redis.info({ timeout: 1000 })).toContain('# Clients');
    const sections = await redis.infoSections();
    expect(sections.server?.redis_mode).toBe('standalone');
    expect(sections.clients?.connected_clients).toMatch(/^\d+$/);
    await redis.set('info-key', 'v');
    expect((await redis.infoSections('keyspace')).keyspace?.db0).toMatch(/^keys=\d+,expires=\d+/);
  });

  it('reads the server clock', async () => {
    const { seconds, microseconds } = await redis.time();
    expect(Math.abs(seconds - Date.now() / 1000)).toBeLessThan(60);
    expect(Number.isInteger(microseconds) && microseconds >= 0 && microseconds < 1_000_000).toBe(true);
  });

  it('counts and flushes keys', async () => {
    await redis.flushall();
    expect(await redis.dbsize()).toBe(0);
    await redis.mset({ a: '1', b: '2' });
    expect(await redis.dbsize()).toBe(2);
    expect(await redis.flushdb({ ASYNC: true })).toBe('OK');
    expect(await redis.dbsize()).toBe(0);
    await redis.set('a', '1');
    expect(await redis.flushall({ SYNC: true })).toBe('OK');
    expect(await redis.dbsize()).toBe(0);
    await expect(redis.flushdb({ ASYNC: true, SYNC: true })).rejects.toBeInstanceOf(
      RespireConfigurationError,
    );
    await expect(redis.flushall({ LAZY: true } as never)).rejects.toMatchObject({ option: 'flushall.LAZY' });
  });

  it('names the connection and lists clients', async () => {
    const id = await redis.clientId();
    expect(id).toBeGreaterThan(0);
    expect(await redis.clientGetName()).toBeNull();
    // CLIENT SETNAME is refused (it would be lost on reconnect): the `clientName` option names it.
    const named = await RespireClient.connect({
      endpoints: [{ host: server.host, port: server.port }],
      protocol,
      clientName: `respire-${protocol}`,
    });
    try {
      const namedId = await named.clientId();
      expect(await named.clientGetName()).toBe(`respire-${protocol}`);
      const info = await named.clientInfo();
      expect(info).toMatchObject({
        id: String(namedId),
        name: `respire-${protocol}`,
        resp: String(protocol),
      });
      const list = await redis.clientList();
      expect(list.find((client) => client.id === String(namedId))?.name).toBe(`respire-${protocol}`);
      expect(list.find((client) => client.id === String(id))?.name).toBe('');
    } finally {
      await named.close();
    }
  });

  it('echoes Buffers with returnBuffers and still parses text replies', () =>
    withBufferClient(server, protocol, async (binary) => {
      expect(await binary.echo(Buffer.from([0, 255]))).toEqual(Buffer.from([0, 255]));
      expect(await binary.ping()).toBe('PONG');
      expect((await binary.infoSections('server')).server?.redis_mode).toBe('standalone');
      expect((await binary.time()).seconds).toBeGreaterThan(0);
    }));
});

describe('parseInfo', () => {
  it('splits sections and fields, keeping colons inside values', () => {
    expect(
      parseInfo('# Server\r\nredis_version:7.0.15\r\nexecutable:/a:b\r\n\r\n# Keyspace\r\ndb0:keys=1\r\n'),
    ).toEqual({
      server: { redis_version: '7.0.15', executable: '/a:b' },
      keyspace: { db0: 'keys=1' },
    });
    expect(parseInfo('loose:1\n')).toEqual({ '': { loose: '1' } });
    expect(parseInfo('')).toEqual({});
  });
});
