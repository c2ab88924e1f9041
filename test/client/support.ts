// Set-up shared by the client tests against a real server: one long-lived client per describe
// block (the command-family tests), clients and fault proxies opened per test and torn down after
// it, socket-write recording, and small promise helpers. The circuit tests have their own kit
// (./circuit-kit.ts) on top of the same fault proxy.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { type RedisCommands, RespireClient, type RespireOptions } from '../../src/index.js';
import { type FaultProxy, type FaultProxyOptions, startFaultProxy } from '../kit/fault-proxy.js';
import type { RedisServer } from '../kit/redis-server.js';

/** The protocols every client behaviour is checked over; RESP3 first, as the default. */
export const PROTOCOLS = [3, 2] as const;

export interface SharedClientOptions extends Partial<RespireOptions> {
  /** FLUSHDB before each test, so tests of one block cannot see each other's keys. */
  flushBeforeEach?: boolean;
}

/**
 * A client connected to `server` before the tests of the current scope and closed after them.
 * The returned handle forwards to that client (as useRedisServer's handle forwards to the server);
 * using it outside a test or hook throws.
 */
export function useSharedClient(server: RedisServer, options: SharedClientOptions = {}): RespireClient {
  const { flushBeforeEach = false, ...clientOptions } = options;
  let client: RespireClient | undefined;
  beforeAll(async () => {
    client = await RespireClient.connect({
      endpoints: [{ host: server.host, port: server.port }],
      ...clientOptions,
    });
  });
  afterAll(async () => {
    await client?.close();
    client = undefined;
  });
  if (flushBeforeEach) {
    beforeEach(async () => {
      await client?.flushdb();
    });
  }
  return new Proxy({} as RespireClient, {
    get(_, property) {
      if (client === undefined) throw new Error('the shared client is not connected (used outside a test?)');
      const value: unknown = Reflect.get(client, property, client);
      return typeof value === 'function' ? value.bind(client) : value;
    },
  });
}

export interface TestClients {
  /** A client to `port` (the server by default) with the kit's defaults under `options`. */
  open(options?: Partial<RespireOptions>, port?: number): Promise<RespireClient>;
  /** A fault proxy in front of the server and a client through it. */
  proxied(
    options?: Partial<RespireOptions>,
    proxyOptions?: Omit<FaultProxyOptions, 'target'>,
  ): Promise<{ proxy: FaultProxy; client: RespireClient }>;
  /** A fault proxy in front of `target` (the server by default), stopped after the test. */
  startProxy(target?: { host: string; port: number }): Promise<FaultProxy>;
  /** Destroys `client` after the test, for clients the test connects itself. */
  track(client: RespireClient): RespireClient;
}

/**
 * Clients and proxies opened by a test are destroyed and stopped after it, and spies on
 * prototypes (recordWritesTo) restored. `defaults` apply to every client `open` connects.
 */
export function useTestClients(server: RedisServer, defaults: Partial<RespireOptions> = {}): TestClients {
  const clients: RespireClient[] = [];
  const proxies: FaultProxy[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const client of clients.splice(0)) client.destroy();
    await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
  });
  const kit: TestClients = {
    async open(options = {}, port = server.port) {
      const client = await RespireClient.connect({
        endpoints: [{ host: server.host, port }],
        ...defaults,
        ...options,
      });
      return kit.track(client);
    },
    async proxied(options = {}, proxyOptions = {}) {
      const proxy = await startFaultProxy({
        target: { host: server.host, port: server.port },
        ...proxyOptions,
      });
      proxies.push(proxy);
      const client = await kit.open(options, proxy.port);
      return { proxy, client };
    },
    async startProxy(target = { host: server.host, port: server.port }) {
      const proxy = await startFaultProxy({ target });
      proxies.push(proxy);
      return proxy;
    },
    track(client) {
      clients.push(client);
      return client;
    },
  };
  return kit;
}

/**
 * `connect(options)` with exactly the options given (no kit defaults, so a `url` or a socket path
 * stands alone); every client it made is destroyed after each test.
 */
export function useConnect(): (options: RespireOptions) => Promise<RespireClient> {
  const clients: RespireClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy();
  });
  return async (options) => {
    const client = await RespireClient.connect(options);
    clients.push(client);
    return client;
  };
}

/**
 * Copies of the bytes of every socket write to `port` (the server runs in another process). The
 * spy is restored after the test by useTestClients.
 */
export function recordWritesTo(port: number): Buffer[] {
  const writes: Buffer[] = [];
  const original = net.Socket.prototype.write;
  vi.spyOn(net.Socket.prototype, 'write').mockImplementation(function (
    this: net.Socket,
    ...args: Parameters<net.Socket['write']>
  ) {
    if (this.remotePort === port) writes.push(Buffer.from(args[0] as Uint8Array));
    return original.apply(this, args);
  });
  return writes;
}

/** Resolves on the next turn of the event loop, after the current tick's writes. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Commands written on the standalone client's shared connection and still owed a reply, read from
 * its router's node (a diagnostic); undefined while it has no connection.
 */
export function inflightCount(client: RespireClient): number | undefined {
  const router = (
    client as unknown as { router: { node: { main: { current?: { inflightCount: number } } } } }
  ).router;
  return router.node.main.current?.inflightCount;
}

/** How a promise settled: its value, or the error it rejected with. */
export interface Outcome<T> {
  value?: T;
  error?: unknown;
}

/** How a promise settled, as a value, so a test can collect outcomes without unhandled rejections. */
export function outcome<T>(promise: Promise<T>): Promise<Outcome<T>> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/**
 * How `promise` settled, if it did within `ms`, else `'pending'`: for the bound a contract
 * implies (with slack), where waiting for the settlement alone would hang the test instead.
 */
export function outcomeWithin<T>(promise: Promise<T>, ms: number): Promise<Outcome<T> | 'pending'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  return Promise.race([outcome(promise), late]).finally(() => clearTimeout(timer));
}

/** Byte length of a command as RESP on the wire (PROTOCOL.md §1.5). */
export function wireLength(args: readonly string[]): number {
  let length = `*${args.length}\r\n`.length;
  for (const arg of args) {
    const bytes = Buffer.byteLength(arg);
    length += `$${bytes}\r\n`.length + bytes + 2;
  }
  return length;
}

/** The test that a shared client really speaks the protocol its block is about. */
export function itRunsOnProtocol(redis: RespireClient, protocol: 2 | 3): void {
  it('runs on the protocol asked for', async () => {
    expect((await redis.clientInfo()).resp).toBe(String(protocol));
  });
}

/**
 * Runs `body` with a client of its own that returns data as Buffers (`returnBuffers`), closed
 * afterwards whether `body` passed or failed.
 */
export async function withBufferClient(
  server: RedisServer,
  protocol: 2 | 3,
  body: (binary: RedisCommands<Buffer>) => Promise<void>,
): Promise<void> {
  const client = await RespireClient.connect({
    endpoints: [{ host: server.host, port: server.port }],
    protocol,
    returnBuffers: true,
  });
  try {
    await body(client as unknown as RedisCommands<Buffer>);
  } finally {
    await client.close();
  }
}
