// Exclusive use of one dedicated connection's socket, for a value too large to hold whole
// (`getStream`, `setFromStream`): the bytes are written and read here, around the pipeline's
// encoder and decoder, so that neither ever holds the value. The exchange owns the connection's
// reads (`Connection.tap`) from its write until it gives the connection back: clean (the reply read
// to its last byte, nothing else owed) back to the pool, or closed, never misaligned.
//
// Circuit (seed 000 "Endpoint circuit breakers"): the borrow is checked like any dedicated
// connection (circuit-gate.ts `borrow`), the exchange is admitted once right before its first byte
// is written, and its outcome is reported exactly once (`report`); a probe whose reader stalls is
// bounded by the gate like any command without a reply deadline.
import { RespireConnectionError, type RespireEndpoint, RespireTimeoutError } from '../../errors.js';
import type { Channel } from '../../transport/channel.js';
import { Command } from '../../transport/command.js';
import type { Connection } from '../../transport/connection.js';
import { DeadlineTimer } from '../../transport/deadline-timer.js';
import { Health } from '../../transport/health.js';
import type { Clock } from '../../util/clock.js';
import { describeEndpoint } from '../../util/describe-endpoint.js';
import { borrowUntilAbort } from '../node/borrow-until-abort.js';
import type { DataRedirect } from '../node/data-redirect.js';
import type { EndpointNode } from '../node/endpoint-node.js';

/** What streamed operations share with the client's other commands. */
export interface StreamSettings {
  /** Default reply deadline (`commandTimeout`), ms; 0 = none. */
  readonly commandTimeout: number;
  readonly clock: Clock;
  /** Cluster: where a MOVED or ASK sends the command (node/data-redirect.ts). */
  readonly redirect?: DataRedirect | undefined;
}

export class RawExchange {
  /** The admission of the exchange, as a command record the gate knows how to complete. */
  private readonly ticket: Command<unknown>;
  private done = false;
  /** The silence deadline, on the client's clock (deadline-timer.ts): re-armed while bytes move. */
  private readonly deadline: DeadlineTimer;
  /** Clock time of the last bytes read (or of the start of the current wait). */
  private quietSince = 0;
  private quietLimitMs = 0;
  private drainWaiter: { resolve(): void; reject(error: Error): void } | undefined;
  private paused = false;

  private constructor(
    private readonly node: EndpointNode,
    private readonly channel: Channel,
    private readonly connection: Connection,
    private readonly clock: Clock,
    /** Told once when the connection fails the exchange (lost, or silent past the deadline). */
    private readonly onFailure: (error: Error) => void,
    name: string,
  ) {
    this.ticket = new Command([name], 0, undefined, undefined, 0);
    this.deadline = new DeadlineTimer(clock, this.onDeadline);
    connection.socket.once('close', this.onClose);
    connection.socket.on('drain', this.onDrain);
  }

  /** Borrows a dedicated connection of `node` with nothing in flight on it. */
  static async borrow(
    node: EndpointNode,
    clock: Clock,
    name: string,
    onFailure: (error: Error) => void,
    signal: AbortSignal | undefined,
  ): Promise<RawExchange> {
    const channel = await borrowUntilAbort(node.lender, signal);
    const connection = channel.current;
    if (connection === undefined || connection.inflightCount !== 0) {
      node.lender.discard(channel);
      throw new RespireConnectionError('the dedicated connection closed before the streamed value started', {
        endpoint: node.endpoint,
        written: false,
      });
    }
    return new RawExchange(node, channel, connection, clock, onFailure, name);
  }

  get endpoint(): RespireEndpoint {
    return this.node.endpoint;
  }

  /** Whether the connection was given back or closed: nothing more may be written. */
  get finished(): boolean {
    return this.done;
  }

  /**
   * Right before the first byte: throws the circuit's rejection (nothing was sent, and the
   * connection goes back to the pool as it came).
   */
  admit(): void {
    const gate = this.node.gate;
    if (gate === undefined) return;
    const rejection = gate.admit(this.ticket);
    if (rejection !== undefined) {
      this.giveBack();
      throw rejection;
    }
    this.ticket.gate = gate;
  }

  /** The exchange's health outcome; only the first report counts (BREAKER.md 12). */
  report(health: Health): void {
    this.ticket.reportHealth(health);
  }

  /** From now on every read goes to `sink` (which must not throw), not to the decoder. */
  readInto(sink: (chunk: Buffer) => void): void {
    this.connection.tap = (chunk) => {
      this.quietSince = this.clock.now();
      sink(chunk);
    };
  }

  /** Writes bytes; false when the socket asks to drain first (await `drained()`). */
  write(bytes: Uint8Array | string): boolean {
    return this.connection.socket.write(bytes);
  }

  /**
   * Resolves when the socket drained; rejects when the exchange ends first. A server that takes no
   * bytes for `limitMs` (0 = no limit) fails the exchange with a timeout, as one that answers nothing.
   */
  drained(limitMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.done) {
        reject(this.lostError());
        return;
      }
      this.drainWaiter = { resolve, reject };
      this.expectWithin(limitMs);
    });
  }

  /** Backpressure: stops reading the socket until `resume()`; the deadline waits too. */
  pause(): void {
    this.paused = true;
    this.connection.socket.pause();
    this.deadline.cancel();
  }

  /** Reads again after `pause()`; the silence is counted from now. */
  resume(): void {
    if (this.done || !this.paused) return;
    this.paused = false;
    this.connection.socket.resume();
    this.expectWithin(this.quietLimitMs);
  }

  /**
   * Bytes must arrive (or, while draining, be taken) within `limitMs` of the last ones, from now;
   * 0 = no deadline. Silence past it fails the exchange with a response timeout.
   */
  expectWithin(limitMs: number): void {
    this.quietLimitMs = limitMs;
    this.quietSince = this.clock.now();
    this.deadline.cancel();
    if (limitMs > 0 && !this.done) this.deadline.arm(this.quietSince + limitMs);
  }

  /** The reply ended: the connection is clean and goes back to the pool. */
  giveBack(): void {
    if (!this.finish()) return;
    this.node.lender.release(this.channel);
  }

  /** Ends the exchange by closing the connection: the server drops whatever it was part of. */
  close(): void {
    if (!this.finish()) return;
    this.node.lender.discard(this.channel);
  }

  /** The connection failed the exchange: a failure for the circuit, closed, told to the owner. */
  fail(error: Error): void {
    if (this.done) return;
    this.report(Health.Failure);
    this.close();
    this.onFailure(error);
  }

  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    this.deadline.cancel();
    const socket = this.connection.socket;
    socket.off('close', this.onClose);
    socket.off('drain', this.onDrain);
    this.connection.untap();
    // A paused socket would never read again; a connection given back must read its next replies.
    if (this.paused) socket.resume();
    const waiter = this.drainWaiter;
    this.drainWaiter = undefined;
    waiter?.reject(this.lostError());
    return true;
  }

  /** The deadline fell due: bytes that moved since push it back; silence fails the exchange. */
  private readonly onDeadline = (now: number): number => {
    if (this.done) return Number.POSITIVE_INFINITY;
    const limitMs = this.quietLimitMs;
    const due = this.quietSince + limitMs;
    if (now < due) return due;
    const what = this.drainWaiter === undefined ? 'sent nothing' : 'read nothing';
    this.fail(
      new RespireTimeoutError(
        `${describeEndpoint(this.endpoint)} ${what} for ${limitMs} ms during a streamed value`,
        'response',
        { endpoint: this.endpoint, timeoutMs: limitMs, written: true },
      ),
    );
    return Number.POSITIVE_INFINITY;
  };

  private readonly onDrain = (): void => {
    const waiter = this.drainWaiter;
    if (waiter === undefined) return;
    this.drainWaiter = undefined;
    this.deadline.cancel();
    waiter.resolve();
  };

  private readonly onClose = (): void => {
    if (!this.node.dedicatedClosed) {
      this.fail(this.lostError());
      return;
    }
    // The client closed (past close()'s bound) or destroyed it: a failure it caused records nothing.
    // Bytes were on the wire (an upload's last one may have been stored): written, as a command
    // in flight that close() stops waiting for (connection.ts `closeOwed`).
    this.report(Health.None);
    this.close();
    this.onFailure(
      new RespireConnectionError(
        `the client closed the connection to ${describeEndpoint(this.endpoint)} during a streamed ${this.ticket.name}`,
        { endpoint: this.endpoint, written: true },
      ),
    );
  };

  private lostError(): RespireConnectionError {
    return new RespireConnectionError(
      `connection to ${describeEndpoint(this.endpoint)} lost during a streamed value`,
      { endpoint: this.endpoint, written: true },
    );
  }
}
