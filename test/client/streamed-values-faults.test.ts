// Streamed values (issue 13) where they meet faults of a real server: a stream its reader paused
// when the server resets the connection, and a GET the server's ACL refuses. The fault proxy
// (test/kit/fault-proxy.ts) sends the reset; an ACL user without GET gives the refusal.
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireConnectionError, RespireServerError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { useTestClients } from './support.js';

const server = useRedisServer({
  aclUsers: [{ name: 'noget', password: 'pw', rules: ['~*', '&*', '+@all', '-get'] }],
});
const { open, proxied, track } = useTestClients(server);
const BIG = 8 * 1024 * 1024;

describe('streamed values and server faults', () => {
  it('a paused stream whose connection is reset fails as lost once read, a failure for the circuit', async () => {
    const direct = await open();
    await direct.setFromStream('faults:big', [Buffer.alloc(BIG, 7)], { length: BIG });
    const { client, proxy } = await proxied({ circuitBreaker: { minimumFailureCount: 5 } });
    const stream = client.getStream('faults:big', { highWaterMark: 1024 });
    await new Promise((resolve) => stream.once('readable', resolve));
    // The client stopped reading; the proxy then stops reading the server.
    await proxy.waitUntil((p) => p.pausedReads > 0);
    const failed = new Promise<unknown>((resolve) => stream.once('error', resolve));
    await proxy.setMode('reset');
    stream.resume();
    const error = await failed;
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as RespireConnectionError).message).toMatch(/lost during a streamed value/);
    expect(client.circuit!.snapshot().failures).toBeGreaterThanOrEqual(1);
    await proxy.setMode('pass');
    expect(await client.strlen('faults:big')).toBe(BIG);
  });

  it('a GET the ACL refuses fails the stream with NOPERM, a reply: no failure, the connection reused', async () => {
    const redis = track(
      await RespireClient.connect({
        endpoints: [{ host: server.host, port: server.port }],
        username: 'noget',
        password: 'pw',
        circuitBreaker: {},
        maxDedicatedConnections: 1,
      }),
    );
    await redis.set('faults:acl', 'v');
    for (let run = 0; run < 2; run++) {
      const stream = redis.getStream('faults:acl');
      const error = await new Promise<unknown>((resolve) => stream.once('error', resolve));
      expect(error).toBeInstanceOf(RespireServerError);
      expect((error as RespireServerError).code).toBe('NOPERM');
      await expect(stream.valueLength).rejects.toBe(error);
    }
    expect(redis.circuit!.snapshot().failures).toBe(0);
    expect(await redis.setFromStream('faults:acl', ['w'], { length: 1 })).toBe(true);
  });
});
