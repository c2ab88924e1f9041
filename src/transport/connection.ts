// One socket's lifetime: writes queued commands in batches, matches replies to them in FIFO order,
// routes push frames, enforces reply deadlines, and fails what it owes when it dies. It never
// reconnects; the Channel above it does (STYLE.md: node-redis's two queues, undici's cursors).
//
// Reply deadlines (README "Timeouts"): a command past its own deadline fails alone; its late reply
// is still read and dropped, so the FIFO stays aligned. The connection itself is replaced only when
// it is unresponsive: its oldest written command that has a reply deadline is past that deadline,
// and nothing at all has been read for `commandTimeout` (that command's own timeout when the
// connection has none). Blocking commands and `timeout: 0` are exempt themselves, but do not
// shield the commands with deadlines written after them.

import type net from 'node:net';
import {
  RespireConnectionError,
  type RespireEndpoint,
  type RespireError,
  RespireProtocolError,
} from '../errors.js';
import { RespDecoder } from '../resp/decoder.js';
import { CommandEncoder } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import type { Clock } from '../util/clock.js';
import { describeEndpoint } from '../util/describe-endpoint.js';
import { RingQueue } from '../util/ring-queue.js';
import type { AdmissionGate } from './admission-gate.js';
import { Command, CommandFlags, CommandState } from './command.js';
import { DeadlineTimer } from './deadline-timer.js';
import { kindOf } from './frame-kind.js';
import { Health } from './health.js';
import { replyTimeoutError, silenceDuringMaintenance } from './maintenance/maintenance-errors.js';
import type { MaintenanceWindows } from './maintenance/maintenance-windows.js';
import type { SlabReader } from './slab-reader.js';

/** Bytes encoded before a socket write is issued mid-flush, so huge batches stream out. */
const WRITE_CHUNK_BYTES = 256 * 1024;

export interface ConnectionEvents {
  /** A push frame (RESP3 `>`, or a RESP2 pub/sub message on a subscribed connection). */
  onPush(frame: RespValue[]): void;
  /** The socket can take more bytes after a write returned false. */
  onDrain(): void;
  /** The connection ended; `error` is undefined only after `close()`/`destroy()` without one. */
  onClose(error: RespireError | undefined): void;
}

const SUBSCRIPTION_KINDS = new Set([
  'subscribe',
  'psubscribe',
  'ssubscribe',
  'unsubscribe',
  'punsubscribe',
  'sunsubscribe',
]);
const MESSAGE_KINDS = new Set(['message', 'pmessage', 'smessage']);

export class Connection {
  /** RESP version in effect; the handshake may lower it to 2. */
  protocol: 2 | 3 = 2;
  private readonly decoder: RespDecoder;
  private readonly encoder = new CommandEncoder();
  private readonly inflight = new RingQueue<Command<unknown>>(64);
  private readonly timer: DeadlineTimer;
  private waitingForDrain = false;
  private closed = false;
  /** QUIT was sent: the server closing the socket is the expected end, not a failure. */
  private quitting = false;
  private idleWaiters: (() => void)[] = [];
  /**
   * RESP2 subscriber mode: the subscriptions the server reported in its last confirmations. Redis
   * counts channels and patterns together and shard channels apart (issue 19 #4), so each count
   * alone can read 0 while the connection is still subscribed.
   */
  private classicSubscriptions = 0;
  private shardSubscriptions = 0;
  /** Clock time of the last bytes read; an unresponsive connection has read nothing for a while. */
  private lastReadAt = Number.NEGATIVE_INFINITY;
  /** Set by `boundClose`: past this time, what is still owed a reply fails and the socket closes. */
  private closeBy = 0;
  /** Reads go here, not to the decoder, while a streamed value uses `socket` (streams/raw-exchange.ts). */
  tap: ((chunk: Buffer) => void) | undefined = undefined;

  constructor(
    readonly endpoint: RespireEndpoint,
    readonly socket: net.Socket,
    private readonly clock: Clock,
    private readonly events: ConnectionEvents,
    returnBuffers: boolean,
    /** The connection's default reply deadline (ms, 0 = none): the silence that makes it unresponsive. */
    private readonly commandTimeoutMs: number,
    /** When the socket reads into slabs (`onread`), they come from here instead of 'data'. */
    reader?: SlabReader,
    /** The endpoint's maintenance windows, which relax reply deadlines (PROTOCOL.md §5). */
    private readonly maintenance?: MaintenanceWindows,
  ) {
    this.decoder = new RespDecoder({ onReply: this.onReply, onPush: this.onPush, returnBuffers });
    this.timer = new DeadlineTimer(clock, this.onDeadline);
    if (reader === undefined) socket.on('data', this.onData);
    else reader.attach(this.onData, () => this.decoder.releaseInput());
    socket.on('drain', this.onSocketDrain);
    socket.on('error', this.onSocketError);
    // The server's FIN: from then on node drops writes (EPIPE on a later tick), so nothing more
    // may count as written; what is queued stays unwritten for the channel to move or resend.
    socket.on('end', this.onSocketClose);
    socket.on('close', this.onSocketClose);
  }

  /** Commands written and still owed a reply (including ones whose caller stopped waiting). */
  get inflightCount(): number {
    return this.inflight.length;
  }

  /** Whether the connection can take writes now. */
  get writable(): boolean {
    return !this.closed && !this.waitingForDrain;
  }

  /**
   * Writes commands from `queue` until it is empty or the socket asks to drain. A command crosses
   * from queued to written when it is encoded into a socket write; settled (aborted) ones are
   * dropped unsent.
   */
  writeFrom(queue: RingQueue<Command<unknown>>, gate: AdmissionGate | undefined): void {
    if (!this.writable) return;
    const now = this.clock.now();
    const encoder = this.encoder;
    for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
      if (command.state === CommandState.Settled) continue;
      if (gate !== undefined && (command.flags & CommandFlags.TransactionStep) === 0) {
        // A command that took a probe ticket while it waited for a connection keeps it only if that
        // half-open round is still the current one (seed 000: checked right before sending).
        const rejection = command.gate === undefined ? gate.admit(command) : gate.admitWaited(command);
        if (rejection !== undefined) {
          command.reject(rejection);
          continue;
        }
        command.gate = gate;
      }
      try {
        // Large Buffers are written by reference, so they must stay unmodified until written: a
        // command whose promise may settle before that (fire-and-forget, or aborted after the
        // write) has them copied instead. Every other settles after the server read it whole.
        encoder.encode(
          command.args,
          command.signal !== undefined || (command.flags & CommandFlags.FireAndForget) !== 0,
        );
      } catch (error) {
        command.reject(error);
        continue;
      }
      this.track(command, now);
      if (encoder.byteLength >= WRITE_CHUNK_BYTES && !this.writeEncoded()) {
        this.waitingForDrain = true;
        break;
      }
    }
    if (encoder.byteLength > 0 && !this.writeEncoded()) this.waitingForDrain = true;
  }

  /**
   * Writes what the encoder holds. Several chunks (large Buffers by reference between encoded
   * bytes) are written corked, so they leave in one writev without a copy in JavaScript; all of
   * them are written even after one fills the socket, as their commands already count as written.
   * Returns false when the socket asks to drain.
   */
  private writeEncoded(): boolean {
    const chunks = this.encoder.takeChunks();
    const socket = this.socket;
    // String chunks are ASCII (CommandEncoder.takeChunks); Buffers ignore the encoding.
    if (chunks.length === 1) return socket.write(chunks[0]!, 'latin1');
    let ready = true;
    socket.cork();
    for (const chunk of chunks) if (!socket.write(chunk, 'latin1')) ready = false;
    socket.uncork();
    return ready;
  }

  /** Writes one command at once, ahead of any queue: for the handshake and connection setup. */
  request(args: readonly (string | Buffer)[], timeoutMs = 0): Promise<RespValue> {
    const command = new Command<RespValue>(args, CommandFlags.Handshake, undefined, undefined, timeoutMs);
    if (this.closed) {
      command.reject(
        new RespireConnectionError('connection is closed', { endpoint: this.endpoint, written: false }),
      );
      return command.promise;
    }
    this.encoder.encode(args);
    this.track(command as Command<unknown>, this.clock.now());
    if (!this.writeEncoded()) this.waitingForDrain = true;
    return command.promise;
  }

  /** Resolves once no reply is owed and no streamed value is under way (or the connection is gone). */
  whenIdle(): Promise<void> {
    if ((this.inflight.length === 0 && this.tap === undefined) || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Sends QUIT after what is in flight; resolves once the socket is closed. */
  quit(timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.quitting = true;
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      // Answered or not (a server that stops answering must not keep close() waiting past the
      // deadline), the connection has no more use: closing it does not wait for a server that
      // keeps its side open. Redis usually closes first, right after its answer.
      const close = (): void => this.destroy(undefined);
      this.request(['QUIT'], timeoutMs).then(close, close);
    });
  }

  /**
   * Closes the socket now; what is in flight fails with `error`. Without one the client closes it
   * itself: what is in flight fails with `owed` (a generic closed error by default) and records no
   * health outcome (seed 000: nothing is recorded for a failure the client caused).
   */
  destroy(error: RespireError | undefined, owed?: RespireError): void {
    this.shut(
      error,
      error ??
        owed ??
        new RespireConnectionError('connection closed by the client', {
          endpoint: this.endpoint,
          written: true,
        }),
    );
  }

  /**
   * close() waits for replies in flight, but a BLPOP 0 never answers: past `boundMs` from now (or
   * the latest reply deadline in flight, if later), what is still owed fails and the socket closes,
   * as a close by the client (no health outcome).
   */
  boundClose(boundMs: number): void {
    if (this.closed || (this.inflight.length === 0 && this.tap === undefined)) return;
    let closeBy = this.clock.now() + boundMs;
    for (let i = 0; i < this.inflight.length; i++) {
      const deadline = this.inflight.at(i)!.deadline;
      if (deadline > closeBy) closeBy = deadline;
    }
    this.closeBy = closeBy;
    this.timer.arm(closeBy);
  }

  /** The streamed value ended: replies are decoded again, and close() may send QUIT now. */
  untap(): void {
    this.tap = undefined;
    if (this.inflight.length === 0) this.wakeIdle();
  }

  private shut(error: RespireError | undefined, owed: RespireError): void {
    if (this.closed) return;
    this.closed = true;
    this.timer.cancel();
    this.failInflight(owed, error === undefined);
    this.socket.destroy();
    this.wakeIdle();
    this.events.onClose(error);
  }

  private track(command: Command<unknown>, now: number): void {
    command.state = CommandState.Written;
    command.writtenAt = now;
    // The acquire deadline of its wait ends here; only a reply deadline may replace it.
    if (command.timeoutMs > 0 && (command.flags & CommandFlags.Blocking) === 0) {
      command.deadline = now + (this.maintenance?.relax(command.timeoutMs) ?? command.timeoutMs);
      this.timer.arm(command.deadline);
    } else {
      command.deadline = 0;
    }
    this.inflight.push(command);
    if ((command.flags & CommandFlags.FireAndForget) !== 0) command.resolve(undefined);
  }

  private readonly onData = (chunk: Buffer): void => {
    // Once per socket read, not per reply: the proof of life the unresponsive rule looks for.
    this.lastReadAt = this.clock.now();
    if (this.tap !== undefined) {
      this.tap(chunk);
      return;
    }
    try {
      this.decoder.write(chunk);
    } catch (error) {
      // The decoder knows the stream offset; the connection adds which endpoint sent the bytes.
      const message =
        error instanceof RespireProtocolError ? error.message : `cannot process a reply: ${String(error)}`;
      const offset = error instanceof RespireProtocolError ? error.offset : undefined;
      this.destroy(
        new RespireProtocolError(`${message} from ${describeEndpoint(this.endpoint)}`, {
          endpoint: this.endpoint,
          cause: error,
          offset,
        }),
      );
    }
  };

  private readonly onReply = (value: RespValue): void => {
    const command = this.inflight.peek();
    // RESP2 subscriber mode: messages arrive as plain arrays, mostly while nothing is in flight.
    if (command === undefined || (command.flags & CommandFlags.Subscription) !== 0 || this.subscribed) {
      if (this.protocol === 2 && this.onResp2PubSub(value, command)) return;
    }
    if (command === undefined) {
      throw new RespireProtocolError('the server sent a reply no command was waiting for', {
        endpoint: this.endpoint,
      });
    }
    this.inflight.shift();
    command.reply(value);
    if (this.idleWaiters.length !== 0 && this.inflight.length === 0) this.wakeIdle();
  };

  /** Whether the server counts any subscription on this connection (RESP2 subscriber mode). */
  private get subscribed(): boolean {
    return this.classicSubscriptions > 0 || this.shardSubscriptions > 0;
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  private readonly onPush = (frame: RespValue[]): void => {
    this.confirmSubscription(frame);
    this.events.onPush(frame);
  };

  /** RESP2 pub/sub arrives as plain arrays (PROTOCOL.md §1.3); returns true when it was one. */
  private onResp2PubSub(value: RespValue, head: Command<unknown> | undefined): boolean {
    if (!Array.isArray(value) || value.length < 2) return false;
    const kind = kindOf(value);
    // With nothing in flight, or only a (un)subscribe whose replies are confirmations, it cannot
    // be a reply.
    if (
      MESSAGE_KINDS.has(kind) &&
      (this.subscribed || head === undefined || (head.flags & CommandFlags.Subscription) !== 0)
    ) {
      this.events.onPush(value);
      return true;
    }
    if (!SUBSCRIPTION_KINDS.has(kind)) return false;
    // A confirmation nobody asked for is the server's own (SUNSUBSCRIBE after a slot moved).
    if (head !== undefined && (head.flags & CommandFlags.Subscription) === 0) return false;
    this.onPush(value);
    return true;
  }

  /**
   * A (un)subscribe confirmation counts toward the (P|S)(UN)SUBSCRIBE command at the head, which
   * resolves with the count of its last confirmation (the subscriber checks a restore with it).
   */
  private confirmSubscription(frame: RespValue[]): void {
    const kind = kindOf(frame);
    if (!SUBSCRIPTION_KINDS.has(kind)) return;
    const count = frame[2];
    if (typeof count === 'number') {
      if (kind === 'ssubscribe' || kind === 'sunsubscribe') this.shardSubscriptions = count;
      else this.classicSubscriptions = count;
    }
    const head = this.inflight.peek();
    if (
      head === undefined ||
      (head.flags & CommandFlags.Subscription) === 0 ||
      head.name.toLowerCase() !== kind
    ) {
      return;
    }
    if (--head.confirmationsLeft > 0) return;
    this.inflight.shift();
    head.reportHealth(Health.Success);
    head.resolve(count);
    if (this.idleWaiters.length !== 0 && this.inflight.length === 0) this.wakeIdle();
  }

  /**
   * The deadline timer fired: commands past their reply deadline fail one by one, then the
   * connection is replaced if it is unresponsive, or closed if close()'s bound has passed.
   */
  private readonly onDeadline = (now: number): number => {
    let next = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.inflight.length; i++) {
      const command = this.inflight.at(i)!;
      const deadline = command.deadline;
      if (deadline === 0) continue;
      // Past it but written before a maintenance window opened: relaxed as in it (PROTOCOL.md §5).
      const due =
        deadline > now ? deadline : command.writtenAt + (this.maintenance?.relax(command.timeoutMs) ?? 0);
      if (due <= now) this.timeOut(command);
      else if ((command.deadline = due) < next) next = due;
    }
    if (this.closed) return Number.POSITIVE_INFINITY;
    const unresponsiveAt = this.unresponsiveAt();
    if (unresponsiveAt <= now) {
      this.replaceUnresponsive();
      return Number.POSITIVE_INFINITY;
    }
    if (this.closeBy !== 0 && this.closeBy <= now) {
      this.closeOwed();
      return Number.POSITIVE_INFINITY;
    }
    return Math.min(next, unresponsiveAt, this.closeBy === 0 ? Number.POSITIVE_INFINITY : this.closeBy);
  };

  /**
   * When the connection counts as unresponsive (see the file comment), from its oldest written
   * command that has a reply deadline; Infinity when none is owed. An exempt command ahead of it
   * (`timeout: 0`) does not shield a black-holed connection: the one behind it still counts.
   */
  private unresponsiveAt(): number {
    const head = this.oldestWithDeadline();
    if (head === undefined) return Number.POSITIVE_INFINITY;
    const ownMs = this.commandTimeoutMs > 0 ? this.commandTimeoutMs : head.timeoutMs;
    const silenceMs = this.maintenance?.relax(ownMs) ?? ownMs;
    const quietSince = Math.max(head.writtenAt, this.lastReadAt);
    return Math.max(head.deadline, quietSince + silenceMs);
  }

  /** The first command in flight with a reply deadline (usually the head), or undefined. */
  private oldestWithDeadline(): Command<unknown> | undefined {
    for (let i = 0; i < this.inflight.length; i++) {
      const command = this.inflight.at(i)!;
      if (command.timeoutMs !== 0 && (command.flags & CommandFlags.Blocking) === 0) return command;
    }
    return undefined;
  }

  /** One command's own reply deadline passed: it fails alone; its reply, if it comes, is dropped. */
  private timeOut(command: Command<unknown>): void {
    command.deadline = 0;
    command.reject(replyTimeoutError(command, this.endpoint, this.maintenance?.active === true));
  }

  private replaceUnresponsive(): void {
    const head = this.oldestWithDeadline()!;
    this.destroy(
      new RespireConnectionError(
        `connection replaced: ${describeEndpoint(this.endpoint)} sent nothing while ${head.name} was overdue`,
        {
          endpoint: this.endpoint,
          written: true,
          cause: silenceDuringMaintenance(this.endpoint, this.maintenance),
        },
      ),
    );
  }

  private closeOwed(): void {
    const head = this.inflight.peek();
    this.shut(
      undefined,
      new RespireConnectionError(
        `the client closed the connection before ${head?.name ?? 'a command'} got its reply (close() waits at most commandTimeout)`,
        { endpoint: this.endpoint, written: true },
      ),
    );
  }

  /** Fails every command owed a reply; a close the client caused records no health outcome. */
  private failInflight(error: RespireError, byClient: boolean): void {
    for (let command = this.inflight.shift(); command !== undefined; command = this.inflight.shift()) {
      if (byClient) command.reportHealth(Health.None);
      command.reject(error);
    }
  }

  private readonly onSocketDrain = (): void => {
    this.waitingForDrain = false;
    this.events.onDrain();
  };

  private readonly onSocketError = (error: Error): void => {
    this.destroy(
      new RespireConnectionError(
        `connection to ${describeEndpoint(this.endpoint)} failed: ${error.message}`,
        {
          endpoint: this.endpoint,
          cause: error,
          written: true,
        },
      ),
    );
  };

  private readonly onSocketClose = (): void => {
    if (this.quitting && this.inflight.length === 0) {
      this.destroy(undefined);
      return;
    }
    this.destroy(
      new RespireConnectionError(`connection to ${describeEndpoint(this.endpoint)} closed by the server`, {
        endpoint: this.endpoint,
        written: true,
      }),
    );
  };
}
