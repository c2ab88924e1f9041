// Tests of the fault proxy against a small echo server and a real redis-server, waiting on events.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { findFreePort, isPortFree, LOOPBACK } from './free-port.js';
import { useRedisServer } from './vitest-redis.js';

/** Resolves waits when a check passes after any change it was told about. */
class Changes {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = () => {
        if (!check()) return;
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }
}

/** One end of a TCP connection that records everything that happens to it. */
class Peer {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  connected = false;
  ended = false;
  closed = false;
  error: NodeJS.ErrnoException | undefined;
  private readonly changes = new Changes();

  constructor(readonly socket: net.Socket) {
    socket.on('connect', () => this.mark(() => (this.connected = true)));
    socket.on('data', (chunk: Buffer) =>
      this.mark(() => {
        this.chunks.push(chunk);
        this.bytes += chunk.length;
      }),
    );
    socket.on('end', () => this.mark(() => (this.ended = true)));
    socket.on('error', (error) => this.mark(() => (this.error ??= error)));
    socket.on('close', () => this.mark(() => (this.closed = true)));
  }

  static connect(port: number): Peer {
    return new Peer(net.connect({ host: LOOPBACK, port }));
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  until(check: () => boolean): Promise<void> {
    return this.changes.until(check);
  }

  /** Resolves with everything received once `count` bytes are in; rejects if it closes first. */
  async read(count: number): Promise<string> {
    await this.until(() => this.bytes >= count || this.closed);
    if (this.bytes < count) throw new Error(`closed after ${this.bytes} of ${count} bytes: ${this.text}`);
    return this.text;
  }

  async opened(): Promise<void> {
    await this.until(() => this.connected || this.closed);
    if (!this.connected) throw new Error(`connect failed: ${this.error?.code}`);
  }

  private mark(update: () => void): void {
    update();
    this.changes.notify();
  }
}

/** A TCP server that echoes every chunk back, keeping a Peer per accepted socket. */
class EchoServer {
  readonly peers: Peer[] = [];
  private readonly changes = new Changes();
  private constructor(
    readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(): Promise<EchoServer> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen({ host: LOOPBACK, port: 0 }, resolve));
    const echo = new EchoServer(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (socket) => {
      const peer = new Peer(socket);
      socket.on('data', (chunk) => socket.write(chunk));
      echo.peers.push(peer);
      echo.changes.notify();
    });
    return echo;
  }

  async peer(index: number): Promise<Peer> {
    await this.changes.until(() => this.peers.length > index);
    return this.peers[index]!;
  }

  async close(): Promise<void> {
    for (const peer of this.peers) peer.socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let echo: EchoServer;
let proxy: FaultProxy;
const clients: Peer[] = [];

function connect(): Peer {
  const peer = Peer.connect(proxy.port);
  clients.push(peer);
  return peer;
}

/** Connects through the proxy and waits until the echo server holds the other end. */
async function connectThrough(): Promise<{ client: Peer; server: Peer }> {
  const index = echo.peers.length;
  const client = connect();
  await client.opened();
  return { client, server: await echo.peer(index) };
}

describe('fault proxy against an echo server', () => {
  beforeEach(async () => {
    echo = await EchoServer.start();
    proxy = await startFaultProxy({ target: { host: LOOPBACK, port: echo.port } });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) {
      client.socket.destroy();
      await client.until(() => client.closed);
    }
    await proxy.stop();
    await echo.close();
  });

  it('passes bytes both ways and counts them exactly', async () => {
    const { client } = await connectThrough();
    expect(proxy.mode).toEqual({ kind: 'pass' });
    await proxy.waitForConnections(1);
    client.socket.write('hello');
    expect(await client.read(5)).toBe('hello');
    client.socket.write(Buffer.alloc(1000, 'x'));
    await client.read(1005);
    expect(client.text).toBe(`hello${'x'.repeat(1000)}`);
    expect([proxy.bytesFromClient, proxy.bytesToServer, proxy.bytesFromServer, proxy.bytesToClient]).toEqual([
      1005, 1005, 1005, 1005,
    ]);
    expect([proxy.connections, proxy.connectionsAccepted, proxy.faultsFired]).toEqual([1, 1, 0]);
  });

  it('resolves waits exactly at their threshold and times them out with the counters', async () => {
    const { client } = await connectThrough();
    let fiveArrived = false;
    const five = proxy.waitForClientBytes(5).then(() => (fiveArrived = true));
    client.socket.write('abc');
    await proxy.waitForClientBytes(3);
    await client.read(3);
    expect(fiveArrived).toBe(false);
    client.socket.write('de');
    await five;
    expect(proxy.bytesFromClient).toBe(5);
    await proxy.waitForServerBytes(5);
    expect(proxy.bytesFromServer).toBe(5);

    const second = await connectThrough();
    await proxy.waitForConnections(2);
    await proxy.waitForConnectionsAccepted(2);
    second.client.socket.destroy();
    await proxy.waitForConnections(1);
    expect(proxy.connectionsAccepted).toBe(2);

    await expect(proxy.waitForClientBytes(6, 20)).rejects.toThrow(
      /6 bytes from clients timed out.*fromClient=5/,
    );
    const pending = expect(proxy.waitUntil((p) => p.bytesToClient > 100)).rejects.toThrow(/stopped/);
    await proxy.stop();
    await pending;
  });

  it('blackhole silences a live connection both ways and delivers held bytes in order on heal', async () => {
    const { client, server } = await connectThrough();
    client.socket.write('1');
    await client.read(1);
    await proxy.setMode('blackhole');
    client.socket.write('2');
    server.socket.write('P');
    await proxy.waitForClientBytes(2);
    await proxy.waitForServerBytes(2);
    expect([proxy.bytesToServer, proxy.bytesToClient, server.bytes, client.bytes]).toEqual([1, 1, 1, 1]);

    // New connections are accepted but nothing crosses.
    const late = connect();
    await late.opened();
    await proxy.waitForConnections(2);
    late.socket.write('L');
    await proxy.waitForClientBytes(3);
    expect(echo.peers.length === 1 || echo.peers[1]!.bytes === 0).toBe(true);

    await proxy.setMode('pass');
    expect(await client.read(3)).toBe('1P2');
    expect(await late.read(1)).toBe('L');
  });

  it('reset sends an RST to live clients and to new ones, until the mode changes', async () => {
    const { client, server } = await connectThrough();
    await proxy.setMode('reset');
    await client.until(() => client.closed);
    expect(client.error?.code).toBe('ECONNRESET');
    await server.until(() => server.closed);
    await proxy.waitForConnections(0);

    const late = connect();
    await late.until(() => late.closed);
    expect(late.error?.code).toBe('ECONNRESET');
    expect(proxy.connectionsAccepted).toBe(2);
    expect(echo.peers).toHaveLength(1);

    await proxy.setMode('pass');
    const again = await connectThrough();
    again.client.socket.write('ok');
    expect(await again.client.read(2)).toBe('ok');
  });

  it('refuse closes the listener, keeps live connections, and reopens on the same port', async () => {
    const { client } = await connectThrough();
    const port = proxy.port;
    await proxy.setMode('refuse');
    const refused = connect();
    await refused.until(() => refused.closed);
    expect(refused.error?.code).toBe('ECONNREFUSED');
    client.socket.write('still');
    expect(await client.read(5)).toBe('still');

    await proxy.setMode('pass');
    expect(proxy.port).toBe(port);
    const again = await connectThrough();
    again.client.socket.write('back');
    expect(await again.client.read(4)).toBe('back');
  });

  it('delays replies only, by at least the given time, and keeps order when switched back to pass', async () => {
    const { client, server } = await connectThrough();
    await proxy.setMode('delay', 60, 'toClient');
    const sentAt = performance.now();
    client.socket.write('a');
    await server.read(1);
    expect(client.bytes).toBe(0);
    await proxy.waitForServerBytes(1);
    // 'a' is queued for 60 ms; 'b' arrives in pass mode and must not overtake it.
    await proxy.setMode('pass');
    client.socket.write('b');
    expect(await client.read(2)).toBe('ab');
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(60);
  });

  it('delays requests only when told to, by at least the given time', async () => {
    const { client, server } = await connectThrough();
    await proxy.setMode({ kind: 'delay', ms: 50, direction: 'toServer' });
    const sentAt = performance.now();
    client.socket.write('q');
    await proxy.waitForClientBytes(1);
    expect(proxy.bytesToServer).toBe(0);
    await server.read(1);
    const reachedServerMs = performance.now() - sentAt;
    expect(reachedServerMs).toBeGreaterThanOrEqual(50);
    expect(await client.read(1)).toBe('q');
  });

  it('delays both ways by default and keeps many chunks in order', async () => {
    const { client } = await connectThrough();
    await proxy.setMode('delay', 20);
    expect(proxy.mode).toEqual({ kind: 'delay', ms: 20, direction: 'both' });
    const sentAt = performance.now();
    let expected = '';
    for (let index = 0; index < 50; index++) {
      client.socket.write(`${index},`);
      expected += `${index},`;
    }
    expect(await client.read(expected.length)).toBe(expected);
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(40);
  });

  it('closeAfterReplyBytes delivers exactly n more reply bytes across chunks, then cuts once', async () => {
    const { client, server } = await connectThrough();
    client.socket.write('first');
    await client.read(5);
    await proxy.setMode('closeAfterReplyBytes', 8);
    client.socket.write('12345');
    await client.read(10);
    client.socket.write('abcdefgh');
    await client.until(() => client.closed);
    expect(client.text).toBe('first12345abc');
    expect(client.error).toBeUndefined();
    expect(client.ended).toBe(true);
    await server.until(() => server.closed);
    expect([proxy.faultsFired, proxy.mode.kind, proxy.bytesToClient]).toEqual([1, 'pass', 13]);

    // One-shot: a new connection passes whole replies.
    const again = await connectThrough();
    again.client.socket.write('abcdefghij');
    expect(await again.client.read(10)).toBe('abcdefghij');
    await proxy.waitForConnections(1);
  });

  it('closeAfterReplyBytes cuts right after a chunk ending at n, and before any byte for n = 0', async () => {
    const exact = await connectThrough();
    await proxy.setMode('closeAfterReplyBytes', 5);
    exact.client.socket.write('12345');
    await exact.client.until(() => exact.client.closed);
    expect([exact.client.text, exact.client.ended, proxy.faultsFired]).toEqual(['12345', true, 1]);

    const none = await connectThrough();
    await proxy.setMode('closeAfterReplyBytes', 0);
    none.client.socket.write('xyz');
    await none.client.until(() => none.client.closed);
    expect([none.client.bytes, proxy.bytesFromServer, proxy.faultsFired]).toEqual([0, 8, 2]);
  });

  it('corruptReplyByte changes exactly one byte at the offset, counted across chunks, once', async () => {
    const { client } = await connectThrough();
    await proxy.setMode('corruptReplyByte', 5);
    client.socket.write('abc');
    expect(await client.read(3)).toBe('abc');
    client.socket.write('defgh');
    const received = Buffer.from(await client.read(8), 'latin1');
    const original = Buffer.from('abcdefgh');
    const changed = [...received.keys()].filter((index) => received[index] !== original[index]);
    expect(changed).toEqual([5]);
    expect(received[5]).toBe(~'f'.charCodeAt(0) & 0xff);
    expect([proxy.faultsFired, proxy.mode.kind]).toEqual([1, 'pass']);

    client.socket.write('ijk');
    expect((await client.read(11)).slice(8)).toBe('ijk');
    await proxy.setMode('corruptReplyByte', 0, 0x21);
    client.socket.write('+OK');
    expect((await client.read(14)).slice(11)).toBe('!OK');
    await proxy.waitForFaults(2);
  });

  it('stops reading a side whose peer does not keep up, and resumes without losing bytes', async () => {
    const { client, server } = await connectThrough();
    client.socket.pause();
    const total = 32 * 1024 * 1024;
    const payload = Buffer.alloc(total);
    for (let index = 0; index < total; index += 4) payload.writeUInt32LE(index, index);
    server.socket.write(payload);
    await proxy.waitUntil((p) => p.pausedReads === 1);
    expect(proxy.bytesFromServer).toBeLessThan(total);
    client.socket.resume();
    await client.read(total);
    expect(Buffer.concat(client.chunks).equals(payload)).toBe(true);
    await proxy.waitUntil((p) => p.pausedReads === 0);
    expect(proxy.bytesToClient).toBe(total);
  });

  it('bounds what a black hole holds, then forwards all of it on heal', async () => {
    await proxy.stop();
    proxy = await startFaultProxy({ target: { host: LOOPBACK, port: echo.port }, maxQueuedBytes: 1024 });
    const { client } = await connectThrough();
    await proxy.setMode('blackhole');
    client.socket.write(Buffer.alloc(64 * 1024, 'z'));
    await proxy.waitUntil((p) => p.pausedReads === 1);
    await proxy.setMode('pass');
    expect(await client.read(64 * 1024)).toBe('z'.repeat(64 * 1024));
    expect(proxy.bytesFromClient).toBe(64 * 1024);
  });

  it('forwards a half-close in order and closes both sides', async () => {
    const { client, server } = await connectThrough();
    await proxy.setMode('delay', 10);
    client.socket.end('bye');
    await server.until(() => server.closed);
    await client.until(() => client.closed);
    expect([server.text, client.text, client.error]).toEqual(['bye', 'bye', undefined]);
    await proxy.waitForConnections(0);
  });

  it('closeAllConnections closes every connection; new ones still pass', async () => {
    const first = await connectThrough();
    const second = await connectThrough();
    await proxy.closeAllConnections();
    expect(proxy.connections).toBe(0);
    await first.client.until(() => first.client.closed);
    await second.client.until(() => second.client.closed);
    expect([first.client.error, second.client.error]).toEqual([undefined, undefined]);
    const again = await connectThrough();
    again.client.socket.write('x');
    expect(await again.client.read(1)).toBe('x');
  });

  it('closes the client connection when the target refuses', async () => {
    await proxy.stop();
    proxy = await startFaultProxy({ target: { host: LOOPBACK, port: await findFreePort() } });
    const client = connect();
    await client.until(() => client.closed);
    expect([client.connected, client.ended, client.error]).toEqual([true, true, undefined]);
    await proxy.waitForConnections(0);
  });

  it('rejects invalid modes with a RangeError naming the parameter', () => {
    expect(() => proxy.setMode('delay', -1)).toThrow(/ms must be/);
    expect(() => proxy.setMode('closeAfterReplyBytes', 1.5)).toThrow(/bytes must be/);
    expect(() => proxy.setMode('corruptReplyByte', 0, 256)).toThrow(/value must be/);
    expect(() => proxy.setMode({ kind: 'delay', ms: 1, direction: 'up' as 'both' })).toThrow(/direction/);
    expect(proxy.mode.kind).toBe('pass');
  });

  it('stop() closes sockets and timers and frees the port', async () => {
    const kinds = ['TCPSocketWrap', 'TCPServerWrap', 'Timeout'];
    const count = () => process.getActiveResourcesInfo().filter((kind) => kinds.includes(kind)).length;
    await proxy.stop();
    // Let handles closed by earlier tests' clean-up leave the list before taking the baseline.
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    const baseline = count();
    proxy = await startFaultProxy({ target: { host: LOOPBACK, port: echo.port } });
    const port = proxy.port;
    const { client, server } = await connectThrough();
    await proxy.setMode('delay', 60_000);
    client.socket.write('never');
    await proxy.waitForClientBytes(5);
    const waiting = expect(proxy.waitForClientBytes(6, 60_000)).rejects.toThrow(/stopped/);
    await proxy.stop();
    await waiting;
    await proxy.stop();
    await client.until(() => client.closed);
    await server.until(() => server.closed);
    expect(count()).toBe(baseline);
    expect(await isPortFree(port)).toBe(true);
    await expect(proxy.setMode('pass')).rejects.toThrow(/stopped/);
  });
});

describe('fault proxy in front of redis-server', () => {
  const redis = useRedisServer();

  it('forwards a pipeline, corrupts one reply byte mid-pipeline and cuts a reply midway', async () => {
    proxy = await startFaultProxy({ target: { host: redis.host, port: redis.port } });
    try {
      const client = connect();
      await client.opened();
      client.socket.write('PING\r\n');
      expect(await client.read(7)).toBe('+PONG\r\n');

      // The second reply's type byte becomes '!', a malformed frame between two good ones.
      await proxy.setMode('corruptReplyByte', 7, '!'.charCodeAt(0));
      client.socket.write('PING\r\nPING\r\nPING\r\n');
      expect((await client.read(28)).slice(7)).toBe('+PONG\r\n!PONG\r\n+PONG\r\n');

      await proxy.setMode('blackhole');
      client.socket.write('SET k 0123456789\r\n');
      await proxy.waitForClientBytes(6 + 18 + 18);
      expect(proxy.bytesToServer).toBe(6 + 18);
      await proxy.setMode('pass');
      expect((await client.read(33)).slice(28)).toBe('+OK\r\n');

      await proxy.setMode('closeAfterReplyBytes', 6);
      client.socket.write('GET k\r\n');
      await client.until(() => client.closed);
      expect(client.text.slice(33)).toBe('$10\r\n0');
      await proxy.waitForConnections(0);
    } finally {
      await proxy.stop();
      for (const client of clients.splice(0)) client.socket.destroy();
    }
  });
});
