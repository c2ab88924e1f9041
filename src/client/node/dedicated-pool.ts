// Connections lent to one user at a time: blocking commands (so a BLPOP never stalls the shared
// pipeline) and WATCH sessions. At most `maxDedicatedConnections`; past that a borrower waits up to
// `acquireTimeout`. A lent connection that was left in an unknown state is closed, not reused.
import { RespireTimeoutError } from '../../errors.js';
import { Channel, type ChannelOptions, clientClosedError } from '../../transport/channel.js';
import type { Connection } from '../../transport/connection.js';
import { startTimer, stopTimer, type Timer } from '../../util/timers.js';
import { observeConnections } from '../diagnostics.js';
import { endpointKey } from '../endpoint.js';

interface Waiter {
  resolve(channel: Channel): void;
  reject(error: Error): void;
  timer: Timer;
}

export class DedicatedPool {
  private readonly idle: Channel[] = [];
  /** Connections out on loan, so that close() and destroy() reach them too. */
  private readonly lent = new Set<Channel>();
  /**
   * Connections being opened: close() and destroy() give them up at once (a black-holed endpoint
   * would otherwise keep the socket, and the process, until connectTimeout).
   */
  private readonly opening = new Set<Channel>();
  private readonly waiters: Waiter[] = [];
  private size = 0;
  private closed = false;
  /** What `close` was given: a replaced node says so, not that the client closed. */
  private closeReason: Error | undefined;

  constructor(
    private readonly options: ChannelOptions,
    private readonly maxSize: number,
  ) {}

  /** The client closed or destroyed the pool: what fails from now on, the client caused. */
  isClosed(): boolean {
    return this.closed;
  }

  /** Borrows a connection; give it back with `release` (reusable) or `discard` (not). */
  async acquire(): Promise<Channel> {
    if (this.closed) throw this.closedError();
    for (let idle = this.idle.pop(); idle !== undefined; idle = this.idle.pop()) {
      if (idle.current !== undefined && !this.movedAway(idle.current)) return this.lend(idle);
      // Its connection ended while it sat idle (the server closed it): it never reconnects. Or a
      // MOVING said its endpoint goes away: dropped, and a new one goes to the announced endpoint.
      idle.destroy();
      this.size--;
    }
    if (this.size < this.maxSize) {
      this.size++;
      // Dedicated connections never reconnect: one that breaks is dropped and replaced on demand.
      // diagnostics.ts: each dedicated connection's connect and close.
      const observer = observeConnections(this.options.endpoint, 'dedicated');
      const channel = new Channel({
        ...this.options,
        reconnect: false,
        onConnect: observer.connected,
        onDisconnect: observer.disconnected,
      });
      this.opening.add(channel);
      try {
        await channel.start();
      } catch (error) {
        // destroy() already counted it out (it resets size to 0).
        this.size = Math.max(0, this.size - 1);
        this.wakeNext();
        throw this.closed ? this.closedError() : error;
      } finally {
        this.opening.delete(channel);
      }
      if (this.closed) {
        // destroy() already counted it out (it resets size to 0).
        this.size = Math.max(0, this.size - 1);
        channel.destroy();
        throw this.closedError();
      }
      return this.lend(channel);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: startTimer(
          this.options.clock,
          () => {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            reject(
              new RespireTimeoutError(
                `no dedicated connection free within ${this.options.acquireTimeout} ms`,
                'acquire',
                { endpoint: this.options.endpoint, timeoutMs: this.options.acquireTimeout, written: false },
              ),
            );
          },
          this.options.acquireTimeout,
        ),
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * Whether a MOVING announced that the endpoint `connection` leads to goes away: for the announced
   * time new connections go elsewhere (PROTOCOL.md §5 item 2, as redis-py drops idle ones).
   */
  private movedAway(connection: Connection): boolean {
    const target = this.options.maintenance?.windows.moved.target;
    return target !== undefined && endpointKey(target) !== endpointKey(connection.endpoint);
  }

  release(channel: Channel): void {
    // Replies still owed (a durable write aborted after its write) would be read by the next
    // borrower (a streamed value reads the socket itself): not clean, so closed, as `discard`.
    const connection = channel.current;
    if (connection !== undefined && connection.inflightCount !== 0) {
      this.discard(channel);
      return;
    }
    if (!this.lent.delete(channel)) return;
    if (this.closed) {
      channel.destroy();
      this.size--;
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      stopTimer(this.options.clock, waiter.timer);
      waiter.resolve(this.lend(channel));
      return;
    }
    this.idle.push(channel);
  }

  /** Closes a borrowed connection whose state cannot be trusted (aborted BLPOP, broken WATCH). */
  discard(channel: Channel): void {
    if (!this.lent.delete(channel)) return;
    channel.destroy();
    this.size--;
    this.wakeNext();
  }

  /** Closes idle connections, and lent ones once their replies in flight have arrived. */
  /** `reason`: what callers waiting for a connection, or opening one, fail with (default: client closed). */
  async close(reason?: Error): Promise<void> {
    this.closed = true;
    this.closeReason = reason;
    this.rejectWaiters();
    for (const channel of this.opening) channel.destroy();
    const idle = this.idle.splice(0);
    this.size -= idle.length;
    await Promise.all([...idle, ...this.lent].map((channel) => channel.close()));
  }

  /** Closes every connection at once; commands on lent ones fail. */
  destroy(): void {
    this.closed = true;
    this.rejectWaiters();
    for (const channel of [...this.opening, ...this.idle.splice(0), ...this.lent]) channel.destroy();
    this.lent.clear();
    this.size = 0;
  }

  private lend(channel: Channel): Channel {
    this.lent.add(channel);
    return channel;
  }

  /** A slot freed up: the oldest waiter gets a fresh connection. */
  private wakeNext(): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) return;
    stopTimer(this.options.clock, waiter.timer);
    this.acquire().then(waiter.resolve, waiter.reject);
  }

  private rejectWaiters(): void {
    for (const waiter of this.waiters.splice(0)) {
      stopTimer(this.options.clock, waiter.timer);
      waiter.reject(this.closedError());
    }
  }

  private closedError(): Error {
    return this.closeReason ?? clientClosedError(this.options.endpoint);
  }
}
