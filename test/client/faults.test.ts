// Malformed replies mid-pipeline (issue 3 "Tests"; PROTOCOL.md §1.2 rule 4): every command in
// flight fails with RespireProtocolError, the connection is dropped without resynchronising, and
// the client reconnects and serves new commands. Also: push frames between replies never take a
// reply's place (§1.3).
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient, RespireProtocolError } from '../../src/index.js';
import { type FakeServer, HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { outcome, useTestClients } from './support.js';

const clients: RespireClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});

/** A client of `fake`, destroyed after the test. */
async function open(fake: FakeServer): Promise<RespireClient> {
  const client = await RespireClient.connect({
    endpoints: [{ host: fake.host, port: fake.port }],
    reconnect: () => 5,
  });
  clients.push(client);
  return client;
}

/** Answers like a small Redis: the handshake, ECHO and GET (value = 'v:' + key). */
function answer(args: string[]): string {
  const name = args[0]!.toUpperCase();
  if (name === 'HELLO') return HELLO_3_REPLY;
  if (name === 'CLIENT') return "-ERR unknown subcommand 'SETINFO'\r\n";
  if (name === 'ECHO' || name === 'GET') {
    const text = name === 'ECHO' ? args[1]! : `v:${args[1]}`;
    return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  }
  if (name === 'QUIT') return '+OK\r\n';
  return '-ERR unexpected\r\n';
}

describe('malformed reply from a real server (proxy corrupts a byte)', () => {
  const { proxied } = useTestClients(useRedisServer(), { reconnect: () => 5 });

  it('fails every in-flight command with RespireProtocolError, then reconnects', async () => {
    const { proxy, client: redis } = await proxied();
    // Replies to ECHO e0..e9 are 8 bytes each; the type byte of the 11th reply is corrupted.
    await proxy.setMode('corruptReplyByte', 80);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => outcome(redis.echo(`e${i}`))));
    expect(proxy.faultsFired).toBe(1);
    expect(results.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => ({ value: `e${i}` })));
    for (const { error } of results.slice(10)) expect(error).toBeInstanceOf(RespireProtocolError);
    // No resynchronisation: the replies after the bad byte were valid, yet none was delivered.
    expect(await redis.echo('fresh')).toBe('fresh');
    expect(proxy.connectionsAccepted).toBe(2);
    // Checked last, so the behaviour above is verified even while this detail fails (B7).
    expect(results[10]!.error).toMatchObject({ endpoint: { host: proxy.host, port: proxy.port } });
  });

  it('fails a pipeline of mixed commands when a bulk length is corrupted', async () => {
    const { proxy, client: redis } = await proxied();
    await redis.set('fault:k', 'value');
    // Reply 0 is `+OK\r\n` (5 bytes); reply 1 is `$5\r\nvalue\r\n`: its length digit becomes '-'.
    await proxy.setMode('corruptReplyByte', 6, '-'.charCodeAt(0));
    const results = await Promise.all([
      outcome(redis.set('fault:k2', 'x')),
      outcome(redis.get('fault:k')),
      outcome(redis.send(['INCR', 'fault:n'])),
      outcome(redis.echo('tail')),
    ]);
    expect(results[0]).toEqual({ value: 'OK' });
    for (const { error } of results.slice(1)) expect(error).toBeInstanceOf(RespireProtocolError);
    expect(await redis.get('fault:k')).toBe('value');
  });
});

describe('malformed reply from the fake server', () => {
  const garbage: [label: string, bytes: string][] = [
    ['an unknown type byte', '?what\r\n'],
    ['a negative bulk length other than -1', '$-5\r\n'],
    ['a bulk string without its CRLF', '$1\r\nab\r\n'],
    ['an integer with a letter', ':12a\r\n'],
    ['a stray end-of-stream marker', '.\r\n'],
  ];

  it.each(garbage)('%s mid-pipeline: all pending fail, the client reconnects', async (_label, bytes) => {
    let poisoned = false;
    await using fake = await startFakeServer({
      script: [],
      fallback: (args) => {
        // The first GET of `bad` on the first connection gets the garbage; later ones are answered.
        if (!poisoned && args[0]!.toUpperCase() === 'GET' && args[1] === 'bad') {
          poisoned = true;
          return bytes;
        }
        return answer(args);
      },
    });
    const redis = await open(fake);
    const results = await Promise.all([
      outcome(redis.get('a')),
      outcome(redis.get('b')),
      outcome(redis.get('bad')),
      outcome(redis.get('c')),
      outcome(redis.echo('d')),
    ]);
    expect(results[0]).toEqual({ value: 'v:a' });
    expect(results[1]).toEqual({ value: 'v:b' });
    for (const { error } of results.slice(2)) expect(error).toBeInstanceOf(RespireProtocolError);
    expect(await redis.get('bad')).toBe('v:bad');
    expect(await redis.echo('after')).toBe('after');
    expect(fake.connectionCount).toBe(2);
    expect(fake.failures).toEqual([]);
    // Checked last, so the behaviour above is verified even while this detail fails (B7).
    expect(results[2]!.error).toMatchObject({ endpoint: { host: fake.host, port: fake.port } });
  });

  it('treats a reply that no command waits for as a protocol error', async () => {
    let sent = false;
    await using fake = await startFakeServer({
      script: [],
      fallback: (args) => {
        if (!sent && args[0]!.toUpperCase() === 'ECHO' && args[1] === 'one') {
          sent = true;
          return `${answer(args)}+EXTRA\r\n`;
        }
        return answer(args);
      },
    });
    const redis = await open(fake);
    const first = await outcome(redis.echo('one'));
    expect(first).toEqual({ value: 'one' });
    // The extra reply closed that connection; the next command gets a new one and its own reply.
    expect(await redis.echo('two')).toBe('two');
    expect(fake.connectionCount).toBeGreaterThanOrEqual(2);
  });
});

describe('push frames between replies', () => {
  it('never take the place of a reply (fake server, pushes split across chunks)', async () => {
    const push = '>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n';
    await using fake = await startFakeServer({
      script: [],
      fallback: (args) => {
        const reply = answer(args);
        return args[0]!.toUpperCase() === 'ECHO' ? `${push}${reply}${push}` : reply;
      },
    });
    const redis = await open(fake);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => redis.echo(`p${i}`)));
    expect(replies).toEqual(Array.from({ length: 50 }, (_, i) => `p${i}`));
    expect(fake.connectionCount).toBe(1);
  });

  describe('against a real server', () => {
    const { open: openReal } = useTestClients(useRedisServer());

    it('keeps replies aligned while invalidation pushes arrive (RESP3 CLIENT TRACKING)', async () => {
      const redis = await openReal();
      const writer = await openReal();
      expect(await redis.send(['CLIENT', 'TRACKING', 'on'])).toBe('OK');
      for (let round = 0; round < 20; round++) {
        const key = `track:${round}`;
        await writer.set(key, `v${round}`);
        // Reading tracks the key; the writer's SET then makes the server push `invalidate`.
        expect(await redis.get(key)).toBe(`v${round}`);
        const [, ...echoes] = await Promise.all([
          writer.set(key, `w${round}`),
          ...Array.from({ length: 20 }, (_, i) => redis.echo(`r${round}:${i}`)),
        ]);
        expect(echoes).toEqual(Array.from({ length: 20 }, (_, i) => `r${round}:${i}`));
        expect(await redis.get(key)).toBe(`w${round}`);
      }
    });
  });
});
