// The simulated network (issue 16): each connection is a pair of ordered byte pipes whose chunks
// are cut at random bytes and delayed, on the scheduler's time. The client's side is a real Duplex
// stream (what Connection uses of a net.Socket) with a small write buffer, so a slow peer makes
// `write` return false and 'drain' come later, as on a socket. Connections can be refused, left
// hanging, black-holed, reset (ECONNRESET) or closed by the server; the fault plan decides when.
import type net from 'node:net';
import { Duplex } from 'node:stream';
import { RespireConnectionError, type RespireEndpoint } from '../../src/errors.js';
import type { SlabReader } from '../../src/transport/slab-reader.js';
import type { SocketFactory } from '../../src/transport/socket-factory.js';
import type { SeededRandom } from '../kit/seeded-random.js';
import type { Scheduler } from './scheduler.js';

/** How one connection's bytes travel. */
export interface LinkProfile {
  /** One-way delay of a chunk: base plus up to jitter, ms. */
  latencyMs: number;
  jitterMs: number;
  /** Chance that a write is cut into pieces at random bytes. */
  splitChance: number;
  /** The client socket's write buffer (highWaterMark), bytes: small makes a slow reader. */
  writeBufferBytes: number;
}

/** What the server side of a link must do (the simulated Redis). */
export interface ServerPeer {
  receive(chunk: Buffer): void;
  /** The client's end went away (it closed or reset the connection). */
  gone(): void;
}

/** Decides, per connection attempt, what the network does with it. */
export interface ConnectPolicy {
  /** 'refuse' after `delayMs`, 'hang' (never answers), or 'accept' after `delayMs`. */
  connect(endpoint: RespireEndpoint): { outcome: 'accept' | 'refuse' | 'hang'; delayMs: number };
  profile(): LinkProfile;
}

export interface SimListener {
  accept(link: SimLink): void;
}

/** One TCP connection between the client and a simulated server. */
export class SimLink {
  readonly socket: SimSocket;
  peer: ServerPeer | undefined;
  /** Black-holed: nothing crosses either way any more, and nobody is told. */
  blackholed = false;
  /** Ended (reset or closed) as the server sees it. */
  closed = false;
  private upArrival = 0;
  private downArrival = 0;

  constructor(
    readonly id: number,
    /** The server's `host:port`. */
    readonly to: string,
    private readonly scheduler: Scheduler,
    private readonly random: SeededRandom,
    readonly profile: LinkProfile,
    reader: SlabReader | undefined,
  ) {
    this.socket = new SimSocket(this, reader, profile.writeBufferBytes);
  }

  /** Client → server; `delivered` once the last byte arrived (or was swallowed by a black hole). */
  toServer(chunk: Buffer, delivered: () => void): void {
    if (this.closed || this.blackholed) {
      delivered();
      return;
    }
    this.upArrival = this.carry(chunk, this.upArrival, (piece) => this.peer?.receive(piece), delivered);
  }

  /** Server → client. */
  toClient(bytes: Buffer): void {
    if (this.closed || this.blackholed) return;
    this.downArrival = this.carry(bytes, this.downArrival, (piece) => this.socket.arrive(piece));
  }

  /** The server closes the connection (FIN after what it sent). */
  serverClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.scheduler.trace(`link ${this.id}: server closes`);
    if (this.blackholed) return;
    const at = Math.max(this.downArrival, this.scheduler.now() + this.delay());
    this.scheduler.at(at, 'io', `link ${this.id} FIN`, () => this.socket.remoteClosed(undefined));
  }

  /** A reset: the server forgets the connection; the client gets ECONNRESET after one delay. */
  reset(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.scheduler.trace(`link ${this.id}: reset (${why})`);
    this.peer?.gone();
    if (this.blackholed) return;
    this.scheduler.after(this.delay(), `link ${this.id} RST`, () => {
      const error = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      this.socket.remoteClosed(error);
    });
  }

  blackhole(): void {
    if (this.blackholed || this.closed) return;
    this.blackholed = true;
    this.scheduler.trace(`link ${this.id}: black hole`);
  }

  /** The client closed its socket: the server hears of it one delay later. */
  clientGone(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.blackholed) return;
    this.scheduler.after(this.delay(), `link ${this.id} client close`, () => this.peer?.gone());
  }

  private delay(): number {
    return this.profile.latencyMs + this.random.next() * this.profile.jitterMs;
  }

  /** Sends `bytes` in order after the previous arrival, maybe in pieces; returns the last arrival. */
  private carry(bytes: Buffer, previous: number, arrive: (piece: Buffer) => void, done?: () => void): number {
    const pieces: Buffer[] = [];
    let rest = bytes;
    while (rest.length > 1 && this.random.chance(this.profile.splitChance)) {
      const cut = this.random.int(1, rest.length - 1);
      pieces.push(rest.subarray(0, cut));
      rest = rest.subarray(cut);
    }
    pieces.push(rest);
    let arrival = previous;
    pieces.forEach((piece, i) => {
      arrival = Math.max(arrival, this.scheduler.now() + this.delay());
      const last = i === pieces.length - 1;
      this.scheduler.at(arrival, 'io', `link ${this.id} bytes`, () => {
        // A black hole swallows what was still on the way.
        if (!this.blackholed) arrive(Buffer.from(piece));
        if (last) done?.();
      });
    });
    return arrival;
  }
}

/** The client's end: a Duplex that stands in for net.Socket. */
export class SimSocket extends Duplex {
  constructor(
    private readonly link: SimLink,
    private readonly reader: SlabReader | undefined,
    writeBufferBytes: number,
  ) {
    super({ highWaterMark: writeBufferBytes, allowHalfOpen: false });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.link.toServer(chunk, () => callback());
  }

  override _read(): void {}

  override _final(callback: (error?: Error | null) => void): void {
    this.link.clientGone();
    callback();
    // allowHalfOpen false: the server closes its side in answer; a real socket then closes.
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.link.clientGone();
    callback(error);
  }

  /** Bytes from the server, through the slab reader as `onread` would, or as 'data'. */
  arrive(chunk: Buffer): void {
    if (this.destroyed) return;
    const reader = this.reader;
    if (reader === undefined) {
      this.push(chunk);
      return;
    }
    for (let offset = 0; offset < chunk.length; ) {
      const target = reader.buffer();
      const n = Math.min(target.length, chunk.length - offset);
      chunk.copy(target, 0, offset, offset + n);
      offset += n;
      reader.callback(n, target);
    }
  }

  /** The server's FIN (error undefined) or RST. */
  remoteClosed(error: Error | undefined): void {
    if (this.destroyed) return;
    this.destroy(error);
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }
}

/** The network: opens links to the simulated servers under the connect policy. */
export class SimNetwork {
  readonly links: SimLink[] = [];
  private readonly listeners = new Map<string, SimListener>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly random: SeededRandom,
    private readonly policy: ConnectPolicy,
  ) {}

  listen(endpoint: RespireEndpoint, listener: SimListener): void {
    this.listeners.set(`${endpoint.host}:${endpoint.port}`, listener);
  }

  /** The server is gone: connections to it are refused (a node that died in a failover). */
  unlisten(endpoint: RespireEndpoint): void {
    this.listeners.delete(`${endpoint.host}:${endpoint.port}`);
  }

  /** Live links, all or those to the server `to` (`host:port`), for faults that hit them. */
  open(to?: string): SimLink[] {
    return this.links.filter((link) => !link.closed && (to === undefined || link.to === to));
  }

  /** The SocketFactory the client is given (src/transport/socket-factory.ts). */
  readonly factory: SocketFactory = (endpoint, _tls, signal, reader) =>
    new Promise<net.Socket>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const name = `${endpoint.host}:${endpoint.port}`;
      const listener = this.listeners.get(name);
      const plan =
        listener === undefined ? { outcome: 'refuse' as const, delayMs: 1 } : this.policy.connect(endpoint);
      this.scheduler.trace(`connect ${name}: ${plan.outcome} in ${plan.delayMs.toFixed(1)} ms`);
      const onAbort = (): void => {
        this.scheduler.cancel(event);
        this.scheduler.trace(`connect ${name}: aborted`);
        reject(signal.reason);
      };
      const event =
        plan.outcome === 'hang'
          ? undefined
          : this.scheduler.after(plan.delayMs, `connect ${name}`, () => {
              signal.removeEventListener('abort', onAbort);
              if (plan.outcome === 'refuse') {
                reject(
                  new RespireConnectionError(`cannot connect to ${name}: connect ECONNREFUSED`, {
                    endpoint,
                    written: false,
                  }),
                );
                return;
              }
              const link = new SimLink(
                this.links.length + 1,
                name,
                this.scheduler,
                this.random,
                this.policy.profile(),
                reader,
              );
              this.links.push(link);
              listener!.accept(link);
              this.scheduler.trace(`link ${link.id}: open to ${name}`);
              resolve(link.socket as unknown as net.Socket);
            });
      signal.addEventListener('abort', onAbort, { once: true });
    });
}
