// Ending a client (API.md "Connecting"; issue 3 "Pipeline"): close() stops accepting, waits for
// the replies in flight and QUITs; destroy() fails what is pending at once; `await using` closes.
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireConnectionError } from '../../src/index.js';
import { startFakeServer } from '../kit/fake-server.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextTurn, type Outcome, outcome, outcomeWithin, useTestClients } from './support.js';

const server = useRedisServer();
const { open, proxied, startProxy } = useTestClients(server);

/** Clients connected to the server other than `exceptId`, from CLIENT LIST. */
async function otherClients(monitor: RespireClient): Promise<string[]> {
  const id = await monitor.send(['CLIENT', 'ID']);
  const list = String(await monitor.send(['CLIENT', 'LIST']));
  return list.split('\n').filter((line) => line.startsWith('id=') && !line.startsWith(`id=${id} `));
}

describe('close()', () => {
  it('waits for the replies in flight, then closes the connection', async () => {
    const { proxy, client: redis } = await proxied();
    await proxy.setMode('delay', 30, 'toClient');
    const pending = Array.from({ length: 200 }, (_, i) => outcome(redis.echo(`c${i}`)));
    let closed = false;
    const closing = redis.close().then(() => {
      closed = true;
    });
    // Issued after close(): rejected, never sent.
    const late = await outcome(redis.echo('late'));
    expect(late.error).toBeInstanceOf(RespireConnectionError);
    expect(late.error).toMatchObject({ written: false });
    expect(closed).toBe(false);
    const results = await Promise.all(pending);
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => ({ value: `c${i}` })));
    await closing;
    await proxy.waitForConnections(0);
    const after = await outcome(redis.get('x'));
    expect(after.error).toMatchObject({ name: 'RespireConnectionError', written: false });
  });

  it('sends QUIT after the last reply (fake server)', async () => {
    await using fake = await startFakeServer({
      script: [],
      fallback: (args) => {
        const name = args[0]!.toUpperCase();
        if (name === 'HELLO') {
          return '%3\r\n+server\r\n+redis\r\n+proto\r\n:3\r\n+mode\r\n+standalone\r\n';
        }
        if (name === 'CLIENT') return "-ERR unknown subcommand 'SETINFO'\r\n";
        if (name === 'ECHO') return `$${args[1]!.length}\r\n${args[1]}\r\n`;
        if (name === 'QUIT') return '+OK\r\n';
        return '-ERR unexpected\r\n';
      },
    });
    const redis = await open({}, fake.port);
    const echoes = Promise.all(Array.from({ length: 20 }, (_, i) => redis.echo(`q${i}`)));
    await redis.close();
    expect(await echoes).toEqual(Array.from({ length: 20 }, (_, i) => `q${i}`));
    const names = fake.commands.map((args) => args[0]!.toUpperCase());
    expect(names.at(-1)).toBe('QUIT');
    expect(names.filter((name) => name === 'QUIT')).toHaveLength(1);
    const connection = await fake.connection(0);
    await connection.closed;
  });

  it('fails commands queued while disconnected, unsent', async () => {
    let noticed: () => void = () => {};
    const disconnected = new Promise<void>((resolve) => {
      noticed = resolve;
    });
    const { proxy, client: redis } = await proxied({
      reconnect: () => {
        noticed();
        return 50;
      },
      acquireTimeout: 10_000,
    });
    await proxy.setMode('refuse');
    await proxy.closeAllConnections();
    // The reconnect policy is asked once the client has seen the connection go.
    await disconnected;
    const queued = outcome(redis.set('close:queued', 'v'));
    const started = performance.now();
    await redis.close();
    const { error } = await queued;
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false });
    expect(performance.now() - started).toBeLessThan(5000);
    await proxy.setMode('pass');
    const checker = await open();
    expect(await checker.get('close:queued')).toBeNull();
  });

  it('is idempotent and leaves no connection open', async () => {
    const monitor = await open();
    const before = (await otherClients(monitor)).length;
    const redis = await open();
    await redis.send(['BLPOP', 'close:none', '0.01']);
    expect(await redis.echo('x')).toBe('x');
    const first = redis.close();
    const second = redis.close();
    await Promise.all([first, second]);
    // The server drops a closed client on its own schedule: ask until it is gone.
    let remaining = (await otherClients(monitor)).length;
    for (let attempt = 0; attempt < 200 && remaining > before; attempt++) {
      await nextTurn();
      remaining = (await otherClients(monitor)).length;
    }
    expect(remaining).toBe(before);
  });

  it('waits for a blocking command in flight before resolving', async () => {
    const redis = await open();
    let popped = false;
    const blpop = redis.send(['BLPOP', 'close:block', '0.3']).then((value) => {
      popped = true;
      return value;
    });
    const monitor = await open();
    for (let attempt = 0; attempt < 500; attempt++) {
      if (String(await monitor.send(['CLIENT', 'LIST'])).includes('cmd=blpop')) break;
    }
    await redis.close();
    // close() "waits for replies in flight": the BLPOP's reply (null after 0.3 s) came first.
    expect(popped).toBe(true);
    expect(await blpop).toBeNull();
  });
});

describe('destroy()', () => {
  it('fails everything pending at once', async () => {
    const { proxy, client: redis } = await proxied();
    await proxy.setMode('blackhole');
    const inflight = Array.from({ length: 50 }, (_, i) => outcome(redis.echo(`d${i}`)));
    await proxy.waitUntil((p) => p.bytesFromClient > 0 && p.bytesFromClient >= 50 * 12);
    const started = performance.now();
    redis.destroy();
    const results = await Promise.all(inflight);
    expect(performance.now() - started).toBeLessThan(1000);
    for (const { error } of results) {
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect(error).toMatchObject({ written: true });
    }
    const after = await outcome(redis.echo('after'));
    expect(after.error).toMatchObject({ name: 'RespireConnectionError', written: false });
    redis.destroy();
    await redis.close();
  });

  it('fails a blocking command in flight at once and closes its connection', async () => {
    const redis = await open();
    const monitor = await open();
    const blpop = redis.send(['BLPOP', 'destroy:block', '0']);
    for (let attempt = 0; attempt < 500; attempt++) {
      if (String(await monitor.send(['CLIENT', 'LIST'])).includes('cmd=blpop')) break;
    }
    redis.destroy();
    const settled = await outcomeWithin(blpop, 2_000);
    expect(settled).not.toBe('pending');
    expect((settled as Outcome<unknown>).error).toBeInstanceOf(RespireConnectionError);
  });
});

describe('Symbol.asyncDispose', () => {
  it('closes the client at the end of an `await using` block', async () => {
    const proxy = await startProxy();
    let escaped: RespireClient | undefined;
    {
      await using redis = await RespireClient.connect({
        endpoints: [{ host: proxy.host, port: proxy.port }],
      });
      escaped = redis;
      expect(await redis.set('dispose:k', 'v')).toBe('OK');
      await proxy.waitForConnections(1);
    }
    await proxy.waitForConnections(0);
    const after = await outcome(escaped.get('dispose:k'));
    expect(after.error).toMatchObject({ name: 'RespireConnectionError', written: false });
  });
});
