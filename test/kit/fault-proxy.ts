// A TCP proxy on 127.0.0.1 that injects network faults between a client and a real server, with
// modes switchable at run time; tests and the outage benchmark inject every fault through it.
import net from 'node:net';
import { performance } from 'node:perf_hooks';

/** Which way data flows: client→server carries requests, server→client carries replies. */
export type FaultDirection = 'toServer' | 'toClient' | 'both';

/**
 * What the proxy does now. Modes apply to live and new connections alike.
 * - `pass`: forward both ways, pipe-like, with backpressure.
 * - `blackhole`: a network partition. Everything is read and counted, nothing crosses; bytes are
 *   held in order (not dropped), and crossing resumes when the mode changes, like TCP after a
 *   healed partition. New connections are accepted but stay silent.
 * - `reset`: every client socket gets a TCP RST (the client sees `ECONNRESET`); new ones at once.
 * - `refuse`: the listener closes, so new connections see `ECONNREFUSED`; live ones keep passing.
 *   Leaving `refuse` listens again on the same port (the promise rejects if it was taken meanwhile).
 * - `delay`: every chunk in `direction` waits `ms` longer, in order.
 * - `closeAfterReplyBytes`: one-shot; the next `bytes` server→client bytes are delivered, then
 *   that connection is cut (the client gets EOF mid-reply, the server side is destroyed).
 * - `corruptReplyByte`: one-shot; the server→client byte at `offset` (counting from the first
 *   byte delivered after the mode is set) becomes `value`, by default its bitwise complement.
 * One-shot modes count over all connections in delivery order, fire once, then switch to `pass`
 * (so a reconnecting client is not hit again); `faultsFired` counts them.
 */
export type FaultMode =
  | { readonly kind: 'pass' }
  | { readonly kind: 'blackhole' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'refuse' }
  | { readonly kind: 'delay'; readonly ms: number; readonly direction: FaultDirection }
  | { readonly kind: 'closeAfterReplyBytes'; readonly bytes: number }
  | { readonly kind: 'corruptReplyByte'; readonly offset: number; readonly value?: number | undefined };

/** The modes that take no parameter, accepted by `setMode` as bare names. */
export type SimpleFaultModeName = 'pass' | 'blackhole' | 'reset' | 'refuse';

export interface FaultProxyOptions {
  /** Where connections are forwarded. */
  target: { host: string; port: number };
  /** Listening address; loopback only. Default `127.0.0.1`. */
  host?: string;
  /** Listening port. Default 0 (the kernel picks a free one). */
  port?: number;
  /** Initial mode. Default `pass`. */
  mode?: FaultMode | SimpleFaultModeName;
  /**
   * Bytes held per connection and direction (delayed or black-holed) before the proxy stops
   * reading that side, as a TCP window would. Default 16 MiB; at least 1.
   */
  maxQueuedBytes?: number;
}

/** Default for `timeoutMs` of every wait: long enough for a loaded CI machine, short of vitest's. */
const DEFAULT_WAIT_MS = 10_000;
const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** Marks a queued chunk as held by a black hole: it has no due time yet. */
const HELD = Number.POSITIVE_INFINITY;
const PASS: FaultMode = { kind: 'pass' };

interface QueuedChunk {
  /** `null` is the sender's end of stream (FIN), forwarded in order after the data. */
  chunk: Buffer | null;
  dueAt: number;
}

interface Waiter {
  check(): boolean;
  resolve(): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/** One direction of one proxied connection: reads `source`, writes `sink`, in order. */
class Lane {
  private readonly queue: QueuedChunk[] = [];
  private head = 0;
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private paused = false;
  private awaitingDrain = false;

  constructor(
    private readonly proxy: FaultProxy,
    private readonly connection: Connection,
    readonly direction: 'toServer' | 'toClient',
    readonly source: net.Socket,
    readonly sink: net.Socket,
  ) {
    source.on('data', (chunk: Buffer) => this.receive(chunk));
    source.on('end', () => this.enqueue(null, this.dueAtOfArrival()));
    sink.on('drain', () => {
      this.awaitingDrain = false;
      this.updateFlow();
    });
  }

  /** Whether the source's end of stream is still waiting to be forwarded. */
  get hasPendingEnd(): boolean {
    return this.queue.length > this.head && this.queue[this.queue.length - 1]!.chunk === null;
  }

  private receive(chunk: Buffer): void {
    this.proxy.countReceived(this.direction, chunk.length);
    if (this.connection.cut) return;
    // The hot path: nothing queued, nothing to wait for.
    if (this.queue.length === this.head && this.proxy.delayMs(this.direction) === 0 && !this.proxy.holding) {
      this.deliver(chunk);
      return;
    }
    this.enqueue(chunk, this.dueAtOfArrival());
  }

  private dueAtOfArrival(): number {
    return this.proxy.holding ? HELD : performance.now() + this.proxy.delayMs(this.direction);
  }

  private enqueue(chunk: Buffer | null, dueAt: number): void {
    if (this.connection.cut) return;
    this.queue.push({ chunk, dueAt });
    this.queuedBytes += chunk === null ? 0 : chunk.length;
    // Behind other chunks, a timer (or a black hole's release) already covers this one.
    if (this.queue.length - this.head > 1) this.updateFlow();
    else this.flush();
  }

  /** A black hole ended: held chunks are due now (plus any delay of the new mode). */
  release(): void {
    const dueAt = performance.now() + this.proxy.delayMs(this.direction);
    for (let index = this.head; index < this.queue.length; index++) {
      const entry = this.queue[index]!;
      if (entry.dueAt === HELD) entry.dueAt = dueAt;
    }
    this.flush();
  }

  /** Delivers every due chunk in order, then arms one timer for the next one. */
  private flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const now = performance.now();
    while (this.head < this.queue.length && !this.proxy.holding && !this.connection.cut) {
      const entry = this.queue[this.head]!;
      if (entry.dueAt > now) {
        if (entry.dueAt !== HELD) this.timer = setTimeout(() => this.flush(), Math.ceil(entry.dueAt - now));
        break;
      }
      this.queue[this.head++] = undefined as unknown as QueuedChunk;
      if (entry.chunk === null) {
        if (!this.sink.destroyed) this.sink.end();
      } else {
        this.queuedBytes -= entry.chunk.length;
        this.deliver(entry.chunk);
      }
    }
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.updateFlow();
  }

  private deliver(chunk: Buffer): void {
    if (this.direction === 'toClient') this.proxy.deliverReply(this.connection, chunk);
    else this.proxy.write(this, chunk);
  }

  /** Called after a write the sink could not absorb at once. */
  blockOnDrain(): void {
    this.awaitingDrain = true;
    this.updateFlow();
  }

  /** Reads the source only while the sink keeps up and the queue is within bounds. */
  private updateFlow(): void {
    const shouldPause =
      !this.connection.cut && (this.awaitingDrain || this.queuedBytes > this.proxy.maxQueuedBytes);
    if (shouldPause === this.paused) return;
    this.paused = shouldPause;
    if (shouldPause) this.source.pause();
    else this.source.resume();
    this.proxy.countPause(shouldPause ? 1 : -1);
  }

  /** Drops everything queued and stops the timer (the connection is gone). */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
    this.head = 0;
    this.queuedBytes = 0;
    this.awaitingDrain = false;
    this.updateFlow();
  }
}

interface Connection {
  readonly client: net.Socket;
  readonly server: net.Socket;
  readonly toServer: Lane;
  readonly toClient: Lane;
  /** Cut by a fault: nothing more crosses either way. */
  cut: boolean;
}

/** A running proxy. Create it with `startFaultProxy`; always `stop()` it. */
export class FaultProxy {
  readonly host: string;
  private listenPort: number;
  private readonly listener: net.Server;
  private listening = true;
  private listenerChange: Promise<void> = Promise.resolve();
  private current: FaultMode = PASS;
  /** Connections whose client socket is open. */
  private readonly live = new Set<Connection>();
  /** Connections with either socket open (they may still hold timers). */
  private readonly open = new Set<Connection>();
  /** Every socket not yet closed, with a promise of its `close` event. */
  private readonly sockets = new Map<net.Socket, Promise<void>>();
  private readonly waiters = new Set<Waiter>();
  private stopping: Promise<void> | undefined;
  /** Server→client bytes delivered since the current one-shot mode was set. */
  private replyBytesSinceArmed = 0;

  /** Client sockets accepted so far, including ones reset or refused at once. */
  connectionsAccepted = 0;
  /** Bytes read from clients / from servers, whatever the mode. */
  bytesFromClient = 0;
  bytesFromServer = 0;
  /** Bytes written to servers / to clients. */
  bytesToServer = 0;
  bytesToClient = 0;
  /** One-shot faults (`closeAfterReplyBytes`, `corruptReplyByte`) that have fired. */
  faultsFired = 0;
  /** Sockets the proxy stopped reading because the other side or the queue is full. */
  pausedReads = 0;

  /** @internal Use `startFaultProxy`. */
  constructor(
    listener: net.Server,
    host: string,
    port: number,
    private readonly target: { host: string; port: number },
    readonly maxQueuedBytes: number,
  ) {
    this.listener = listener;
    this.host = host;
    this.listenPort = port;
    listener.on('connection', (socket) => this.accept(socket));
  }

  get port(): number {
    return this.listenPort;
  }

  get mode(): FaultMode {
    return this.current;
  }

  /** Live client sockets. */
  get connections(): number {
    return this.live.size;
  }

  /** @internal Whether a black hole holds all traffic now. */
  get holding(): boolean {
    return this.current.kind === 'blackhole';
  }

  /**
   * Switches mode for live and new connections. The change is in effect when this returns, except
   * that the listener closes (`refuse`) or reopens (leaving it) by the time the promise resolves.
   * Throws a RangeError naming the parameter when one is out of range.
   */
  setMode(mode: FaultMode | SimpleFaultModeName): Promise<void>;
  setMode(kind: 'delay', ms: number, direction?: FaultDirection): Promise<void>;
  setMode(kind: 'closeAfterReplyBytes', bytes: number): Promise<void>;
  setMode(kind: 'corruptReplyByte', offset: number, value?: number): Promise<void>;
  setMode(
    mode: FaultMode | FaultMode['kind'],
    first?: number,
    second?: number | FaultDirection,
  ): Promise<void> {
    if (this.stopping !== undefined) return Promise.reject(new Error('the fault proxy is stopped'));
    const next = validateMode(typeof mode === 'object' ? mode : modeFromArguments(mode, first, second));
    const wasHolding = this.holding;
    this.current = next;
    this.replyBytesSinceArmed = 0;
    if (next.kind === 'reset') for (const connection of this.open) this.drop(connection, true);
    if (wasHolding && !this.holding) {
      for (const connection of this.open) {
        connection.toServer.release();
        connection.toClient.release();
      }
    }
    this.notify();
    return this.setListening(next.kind !== 'refuse');
  }

  /** Resolves when exactly `count` client sockets are live. */
  waitForConnections(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.wait(`${count} live connections`, () => this.live.size === count, timeoutMs);
  }

  /** Resolves once `count` client sockets have been accepted in all. */
  waitForConnectionsAccepted(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.wait(`${count} connections accepted`, () => this.connectionsAccepted >= count, timeoutMs);
  }

  /** Resolves once clients have sent the proxy at least `bytes` bytes in all. */
  waitForClientBytes(bytes: number, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.wait(`${bytes} bytes from clients`, () => this.bytesFromClient >= bytes, timeoutMs);
  }

  /** Resolves once servers have sent the proxy at least `bytes` bytes in all. */
  waitForServerBytes(bytes: number, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.wait(`${bytes} bytes from servers`, () => this.bytesFromServer >= bytes, timeoutMs);
  }

  /** Resolves once `count` one-shot faults have fired in all. */
  waitForFaults(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.wait(`${count} faults fired`, () => this.faultsFired >= count, timeoutMs);
  }

  /** Resolves when `predicate` holds; it is checked on every change of the proxy's counters or mode. */
  waitUntil(predicate: (proxy: FaultProxy) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.wait('predicate', () => predicate(this), timeoutMs);
  }

  /** Destroys every proxied connection (both sockets); resolves when they are closed. */
  closeAllConnections(): Promise<void> {
    for (const socket of this.sockets.keys()) socket.destroy();
    return Promise.all(this.sockets.values()).then(() => undefined);
  }

  /** Closes the listener and every socket, clears every timer, rejects pending waits. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private async shutDown(): Promise<void> {
    for (const waiter of this.waiters) {
      if (waiter.timer !== undefined) clearTimeout(waiter.timer);
      waiter.reject(new Error(`the fault proxy stopped (${this.describe()})`));
    }
    this.waiters.clear();
    for (const connection of this.open) this.drop(connection);
    await this.setListening(false);
    await this.closeAllConnections();
    await closeCallbacksRun();
  }

  private setListening(wanted: boolean): Promise<void> {
    // A failed reopen was reported to its caller; later changes still run.
    this.listenerChange = this.listenerChange.catch(ignore).then(() => {
      if (wanted === this.listening || (wanted && this.stopping !== undefined)) return;
      this.listening = wanted;
      if (!wanted) {
        // Stop accepting at once; live connections are closed separately.
        this.listener.close();
        return;
      }
      return new Promise<void>((resolve, reject) => {
        const onError = (error: Error) => {
          this.listening = false;
          reject(error);
        };
        this.listener.once('error', onError);
        this.listener.listen({ host: this.host, port: this.listenPort }, () => {
          this.listener.off('error', onError);
          resolve();
        });
      });
    });
    return this.listenerChange;
  }

  private accept(client: net.Socket): void {
    this.connectionsAccepted++;
    this.track(client);
    client.on('error', ignore);
    if (this.stopping !== undefined || this.current.kind === 'refuse') {
      client.destroy();
    } else if (this.current.kind === 'reset') {
      client.resetAndDestroy();
    } else {
      this.connect(client);
    }
    this.notify();
  }

  private connect(client: net.Socket): void {
    const server = net.connect({ host: this.target.host, port: this.target.port, allowHalfOpen: true });
    this.track(server);
    server.on('error', ignore);
    client.setNoDelay(true);
    server.setNoDelay(true);
    const connection = { client, server, cut: false } as Connection & { toServer: Lane; toClient: Lane };
    connection.toServer = new Lane(this, connection, 'toServer', client, server);
    connection.toClient = new Lane(this, connection, 'toClient', server, client);
    this.live.add(connection);
    this.open.add(connection);
    client.on('close', () => {
      this.live.delete(connection);
      this.closed(connection, connection.toServer, server);
      this.notify();
    });
    server.on('close', () => this.closed(connection, connection.toClient, client));
  }

  /** One side closed: forward what it still sends `peer`, then let `peer` finish and go too. */
  private closed(connection: Connection, lane: Lane, peer: net.Socket): void {
    if (connection.client.destroyed && connection.server.destroyed) {
      connection.toServer.clear();
      connection.toClient.clear();
      this.open.delete(connection);
      return;
    }
    // The lane still holds the side's end of stream (and maybe data): it ends `peer` when due.
    if (lane.hasPendingEnd) return;
    // A cut client is ending on its own; destroying it could turn its EOF into an RST.
    if (connection.cut && peer === connection.client) return;
    if (!peer.writableEnded) peer.destroy();
    else if (peer.writableFinished) peer.destroy();
    else peer.once('finish', () => peer.destroy());
  }

  private track(socket: net.Socket): void {
    const closed = new Promise<void>((resolve) => {
      socket.once('close', () => {
        this.sockets.delete(socket);
        resolve();
      });
    });
    this.sockets.set(socket, closed);
  }

  /** Closes both sockets at once, the client's with an RST when `reset`. */
  private drop(connection: Connection, reset = false): void {
    connection.cut = true;
    connection.toServer.clear();
    connection.toClient.clear();
    if (reset && !connection.client.destroyed) connection.client.resetAndDestroy();
    else connection.client.destroy();
    connection.server.destroy();
  }

  /** @internal Extra latency of chunks going `direction` under the current mode. */
  delayMs(direction: 'toServer' | 'toClient'): number {
    const mode = this.current;
    if (mode.kind !== 'delay' || (mode.direction !== 'both' && mode.direction !== direction)) return 0;
    return mode.ms;
  }

  /** @internal */
  countReceived(direction: 'toServer' | 'toClient', bytes: number): void {
    if (direction === 'toServer') this.bytesFromClient += bytes;
    else this.bytesFromServer += bytes;
    this.notify();
  }

  /** @internal */
  countPause(change: 1 | -1): void {
    this.pausedReads += change;
    this.notify();
  }

  /** @internal Writes one chunk to the lane's sink, counting it and honouring backpressure. */
  write(lane: Lane, chunk: Buffer): void {
    if (lane.sink.destroyed || lane.sink.writableEnded) return;
    if (lane.direction === 'toServer') this.bytesToServer += chunk.length;
    else this.bytesToClient += chunk.length;
    if (!lane.sink.write(chunk)) lane.blockOnDrain();
    this.notify();
  }

  /** @internal Delivers server→client bytes, applying an armed one-shot fault. */
  deliverReply(connection: Connection, chunk: Buffer): void {
    if (connection.client.destroyed || connection.client.writableEnded) return;
    const mode = this.current;
    if (mode.kind === 'closeAfterReplyBytes') {
      const remaining = mode.bytes - this.replyBytesSinceArmed;
      if (chunk.length < remaining) {
        this.replyBytesSinceArmed += chunk.length;
      } else {
        if (remaining > 0) this.write(connection.toClient, chunk.subarray(0, remaining));
        this.cut(connection);
        this.fired();
        return;
      }
    } else if (mode.kind === 'corruptReplyByte') {
      const index = mode.offset - this.replyBytesSinceArmed;
      if (index >= chunk.length) {
        this.replyBytesSinceArmed += chunk.length;
      } else {
        chunk = Buffer.from(chunk);
        chunk[index] = mode.value ?? ~chunk[index]! & 0xff;
        this.fired();
      }
    }
    this.write(connection.toClient, chunk);
  }

  /** Ends the client side after what was written (EOF mid-reply) and destroys the server side. */
  private cut(connection: Connection): void {
    connection.cut = true;
    connection.toServer.clear();
    connection.toClient.clear();
    connection.server.destroy();
    // The client side stays open and read (what it sends is discarded) until the client closes
    // it, so closing never turns into an RST that could discard the bytes just delivered.
    connection.client.end();
  }

  private fired(): void {
    this.faultsFired++;
    this.current = PASS;
    this.replyBytesSinceArmed = 0;
  }

  private wait(label: string, check: () => boolean, timeoutMs: number): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.stopping !== undefined)
      return Promise.reject(new Error(`the fault proxy is stopped (${label})`));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { check, resolve, reject, timer: undefined };
      if (Number.isFinite(timeoutMs)) {
        waiter.timer = setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(`waiting for ${label} timed out after ${timeoutMs} ms (${this.describe()})`));
        }, timeoutMs);
      }
      this.waiters.add(waiter);
    });
  }

  private notify(): void {
    if (this.waiters.size === 0) return;
    for (const waiter of this.waiters) {
      if (!waiter.check()) continue;
      this.waiters.delete(waiter);
      if (waiter.timer !== undefined) clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }

  private describe(): string {
    return (
      `mode=${this.current.kind} connections=${this.live.size} accepted=${this.connectionsAccepted} ` +
      `fromClient=${this.bytesFromClient} fromServer=${this.bytesFromServer} ` +
      `toServer=${this.bytesToServer} toClient=${this.bytesToClient} faults=${this.faultsFired}`
    );
  }
}

/**
 * Starts a proxy listening on 127.0.0.1 (by default on a free port) in front of `options.target`.
 * A connection whose target cannot be reached is closed (the client sees EOF).
 *
 * ```ts
 * const proxy = await startFaultProxy({ target: { host: redis.host, port: redis.port } });
 * // connect the client to proxy.host:proxy.port, then:
 * await proxy.setMode('blackhole');
 * await proxy.waitForClientBytes(proxy.bytesFromClient + 1); // the command reached the proxy
 * await proxy.setMode('pass');
 * await proxy.stop();
 * ```
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const host = options.host ?? '127.0.0.1';
  const maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  if (!Number.isInteger(maxQueuedBytes) || maxQueuedBytes < 1) {
    throw new RangeError(`maxQueuedBytes must be an integer of at least 1, got ${maxQueuedBytes}`);
  }
  const listener = net.createServer({ allowHalfOpen: true });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ host, port: options.port ?? 0 }, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  const address = listener.address() as net.AddressInfo;
  const proxy = new FaultProxy(listener, host, address.port, { ...options.target }, maxQueuedBytes);
  if (options.mode !== undefined) await proxy.setMode(options.mode);
  return proxy;
}

function modeFromArguments(
  kind: FaultMode['kind'],
  first: number | undefined,
  second: number | FaultDirection | undefined,
): FaultMode {
  switch (kind) {
    case 'delay':
      return { kind, ms: first ?? Number.NaN, direction: (second as FaultDirection | undefined) ?? 'both' };
    case 'closeAfterReplyBytes':
      return { kind, bytes: first ?? Number.NaN };
    case 'corruptReplyByte':
      return { kind, offset: first ?? Number.NaN, value: second as number | undefined };
    default:
      return { kind };
  }
}

function validateMode(mode: FaultMode): FaultMode {
  const fail = (what: string): never => {
    throw new RangeError(`fault mode ${mode.kind}: ${what}`);
  };
  switch (mode.kind) {
    case 'pass':
    case 'blackhole':
    case 'reset':
    case 'refuse':
      return { kind: mode.kind };
    case 'delay':
      if (!(Number.isFinite(mode.ms) && mode.ms >= 0))
        fail(`ms must be a finite number >= 0, got ${mode.ms}`);
      if (!['both', 'toServer', 'toClient'].includes(mode.direction)) {
        fail(`direction must be 'both', 'toServer' or 'toClient', got ${String(mode.direction)}`);
      }
      return { kind: mode.kind, ms: mode.ms, direction: mode.direction };
    case 'closeAfterReplyBytes':
      if (!(Number.isInteger(mode.bytes) && mode.bytes >= 0))
        fail(`bytes must be an integer >= 0, got ${mode.bytes}`);
      return { kind: mode.kind, bytes: mode.bytes };
    case 'corruptReplyByte':
      if (!(Number.isInteger(mode.offset) && mode.offset >= 0)) {
        fail(`offset must be an integer >= 0, got ${mode.offset}`);
      }
      if (
        mode.value !== undefined &&
        !(Number.isInteger(mode.value) && mode.value >= 0 && mode.value <= 255)
      ) {
        fail(`value must be an integer from 0 through 255, got ${mode.value}`);
      }
      return { kind: mode.kind, offset: mode.offset, value: mode.value };
    default:
      return fail('unknown mode');
  }
}

function ignore(): void {}

/**
 * A closed listener leaves Node's list of active handles only in the close-callbacks phase, which
 * follows the check phase of the loop turn: the inner immediate runs after it.
 */
function closeCallbacksRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
