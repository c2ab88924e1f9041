// The scripted fake server: matching commands, split replies, injected bytes, cues and closes.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeServer, type FakeServerOptions, startFakeServer } from './fake-server.js';
import { RawConnection } from './raw-connection.js';
import { encodeRequest } from './resp-wire.js';

const servers: FakeServer[] = [];
async function start(options: FakeServerOptions): Promise<FakeServer> {
  const server = await startFakeServer(options);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A client socket that records each `data` event separately. */
async function openRecorder(server: FakeServer) {
  const socket = net.connect({ host: server.host, port: server.port });
  await new Promise((resolve) => socket.once('connect', resolve));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<string>((resolve) => {
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.once('end', () => resolve('end'));
  });
  return { socket, chunks, closed };
}

describe('startFakeServer', () => {
  it('answers each expected command with its scripted bytes', async () => {
    const server = await start({
      script: [
        { expect: ['HELLO', '3'], reply: '%1\r\n+proto\r\n:3\r\n' },
        { expect: (args) => args[0] === 'GET', reply: '$1\r\nv\r\n' },
      ],
    });
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const connection = await RawConnection.open(server);
    const replies = await connection.request([
      ['hello', '3'],
      ['GET', 'k'],
    ]);
    expect(replies.toString()).toBe('%1\r\n+proto\r\n:3\r\n$1\r\nv\r\n');
    const fake = await server.connection(0);
    await fake.done;
    expect(fake.commands).toEqual([
      ['hello', '3'],
      ['GET', 'k'],
    ]);
    expect(server.failures).toEqual([]);
    connection.close();
  });

  it('writes a reply in pieces at the chosen offsets', async () => {
    const reply = '*2\r\n$5\r\nhello\r\n:42\r\n';
    const server = await start({ script: [{ expect: ['GET', 'k'], reply, splitAt: [1, 9, 15] }] });
    const client = await openRecorder(server);
    client.socket.write(encodeRequest(['GET', 'k']));
    await (await server.connection(0)).done;
    await until(() => Buffer.concat(client.chunks).length === reply.length);
    expect(client.chunks.map(String)).toEqual(['*', '2\r\n$5\r\nh', 'ello\r\n', ':42\r\n']);
    client.socket.destroy();
  });

  it('sends unsolicited bytes, waits on a cue, then closes', async () => {
    let release = () => {};
    const cue = new Promise<void>((resolve) => (release = resolve));
    const server = await start({
      script: [
        { send: '>2\r\n+invalidate\r\n_\r\n' },
        { waitFor: cue },
        { expect: ['PING'], reply: '+PONG\r\n' },
        { close: 'end' },
      ],
    });
    const connection = await RawConnection.open(server);
    expect((await connection.readFrames(1)).toString()).toBe('>2\r\n+invalidate\r\n_\r\n');
    connection.send(['PING']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(connection.received.length).toBe(0); // held back by the cue
    release();
    expect((await connection.readFrames(1)).toString()).toBe('+PONG\r\n');
    await (await server.connection(0)).closed;
    await expect(connection.readFrames(1)).rejects.toThrow(/closed/);
  });

  it('resets the connection on cue', async () => {
    const server = await start({ script: [{ expect: ['PING'] }, { close: 'reset' }] });
    const client = await openRecorder(server);
    client.socket.write(encodeRequest(['PING']));
    expect(await client.closed).toBe('ECONNRESET');
    expect(client.chunks).toEqual([]);
  });

  it('records a mismatch as a failure and drops the connection', async () => {
    const server = await start({ script: [{ expect: ['GET', 'a'], reply: '+never\r\n' }] });
    const client = await openRecorder(server);
    client.socket.write(encodeRequest(['GET', 'b']));
    const fake = await server.connection(0);
    await expect(fake.done).rejects.toThrow(/step 0 expected \["GET","a"\], got \["GET","b"\]/);
    await fake.closed;
    expect(server.failures).toHaveLength(1);
    expect(client.chunks).toEqual([]);
  });

  it('reads requests split anywhere, then answers from the fallback after the script', async () => {
    const server = await start({
      script: [{ expect: ['SET', 'k', 'a\r\nb'], reply: '+OK\r\n' }],
      fallback: (args) => (args[0] === 'PING' ? '+PONG\r\n' : undefined),
    });
    const connection = await RawConnection.open(server);
    const bytes = Buffer.concat([encodeRequest(['SET', 'k', 'a\r\nb']), encodeRequest(['PING'])]);
    for (let i = 0; i < bytes.length; i++) connection.write(bytes.subarray(i, i + 1));
    expect((await connection.readFrames(2)).toString()).toBe('+OK\r\n+PONG\r\n');
    expect(server.commands).toEqual([['SET', 'k', 'a\r\nb'], ['PING']]);
    connection.close();
  });

  it('runs a script per connection index', async () => {
    const server = await start({
      script: (index) => [{ expect: ['PING'], reply: `+PONG${index}\r\n` }],
    });
    const first = await RawConnection.open(server);
    const second = await RawConnection.open(server);
    expect((await second.request([['PING']])).toString()).toBe('+PONG1\r\n');
    expect((await first.request([['PING']])).toString()).toBe('+PONG0\r\n');
    expect(server.connectionCount).toBe(2);
    first.close();
    second.close();
  });

  it('reports an unreadable request as a failure', async () => {
    const server = await start({ script: [] });
    const client = await openRecorder(server);
    client.socket.write('PING\r\n');
    await (await server.connection(0)).closed;
    expect(server.failures.map((error) => error.message)).toEqual([
      "fake server: unreadable request: request does not start with '*' at offset 0",
    ]);
  });
});

/** Resolve once `condition` holds, checking after each I/O turn (bounded by the test timeout). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
