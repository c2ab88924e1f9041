// A reconnecting command pipeline to one endpoint: the not-yet-written queue (bounded by
// `maxPendingCommands`, with bounded waiters past it), automatic pipelining (every command issued
// in the same tick goes out in one write), reconnects per policy, and acquire deadlines for
// commands that cannot be written. Written commands belong to the current Connection.
import {
  RespireAuthenticationError,
  RespireConnectionError,
  type RespireEndpoint,
  type RespireError,
} from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { RingQueue } from '../util/ring-queue.js';
import { startTimer, stopTimer, type Timer } from '../util/timers.js';
import {
  acquireError,
  clientClosedError,
  expireAcquireDeadlines,
  lostForGoodError,
  unreachableError,
  unwrittenSetupError,
} from './channel-errors.js';
import type { ChannelOptions } from './channel-options.js';
import { type Command, CommandState } from './command.js';
import { connect } from './connect.js';
import type { Connection } from './connection.js';
import { DeadlineTimer } from './deadline-timer.js';
import { dial } from './dial.js';
import { Health } from './health.js';
import type { HandoffChannel } from './maintenance/handoff.js';
import { NextConnection } from './next-connection.js';
import { askReconnectPolicy } from './reconnect-policy.js';
import { UnwrittenCommands } from './unwritten-commands.js';

export type { ChannelOptions } from './channel-options.js';

type ChannelState = 'connecting' | 'ready' | 'reconnecting' | 'closing' | 'closed';

export class Channel implements HandoffChannel {
  private state: ChannelState = 'connecting';
  /** Maintenance handoffs holding queued commands back, each its own (maintenance/handoff.ts). */
  private pauses = 0;
  private connection: Connection | undefined;
  private readonly unwritten = new UnwrittenCommands();
  private readonly queue = this.unwritten.queue;
  /** Commands waiting for room in `queue` (bounded by maxPendingCommands too). */
  private readonly waiters = this.unwritten.waiters;
  /** What `writeFirst` gave for the current connection and is not yet written. */
  private readonly setup = new RingQueue<Command<unknown>>(16);
  private readonly acquireTimer: DeadlineTimer;
  private flushScheduled = false;
  /** Whether the full queue was already compacted since the last flush. */
  private compactedThisTick = false;
  private attempt = 0;
  private reconnectTimer: Timer | undefined;
  private lastError: RespireError | undefined;
  /** Closed because its connection was lost and it does not reconnect, not by the client. */
  private givenUp = false;
  /** The connection close() sent QUIT on, until the server has closed it. */
  private quitting: Connection | undefined;
  /** Handoffs waiting for the connection being opened (maintenance/handoff.ts). */
  private readonly adoptions = new NextConnection();
  /**
   * Aborted as the channel closes: a connection still being opened (the first, a reconnection, a
   * handoff's replacement) is given up at once rather than left open until connectTimeout.
   */
  private readonly closing = new AbortController();

  constructor(private readonly options: ChannelOptions) {
    this.acquireTimer = new DeadlineTimer(options.clock, this.onAcquireDeadline);
  }

  get endpoint(): RespireEndpoint {
    return this.options.endpoint;
  }

  /** The ready connection, if any (for tests and diagnostics). */
  get current(): Connection | undefined {
    return this.connection;
  }

  /** Opens the first connection; rejects with its error (the channel is then closed). */
  async start(): Promise<void> {
    const events = this.eventsFor();
    let connection: Connection;
    try {
      connection = await dial(this.options, events, this.closing.signal);
    } catch (error) {
      this.state = 'closed';
      this.acquireTimer.cancel();
      // Commands queued while the first connection was being opened were never sent.
      this.failQueued(error instanceof Error ? error : clientClosedError(this.endpoint));
      throw error;
    }
    if (this.state !== 'connecting') {
      // Closed or destroyed while connecting: the new socket has no owner.
      connection.destroy(undefined);
      throw clientClosedError(this.endpoint);
    }
    const endedEarly = events.bind(connection);
    if (endedEarly !== undefined) {
      this.state = 'closed';
      this.acquireTimer.cancel();
      this.failQueued(endedEarly);
      throw endedEarly;
    }
    this.adopt(connection);
  }

  /**
   * Opens the first connection without waiting for it: a failure is a lost connection (reconnect
   * per policy, waiting commands keep their acquire deadlines), not a closed channel. For nodes a
   * router opens on demand (a Cluster node first named by the slot map or a MOVED).
   */
  startInBackground(): void {
    if (this.state !== 'connecting') return;
    this.state = 'reconnecting';
    this.reconnect();
  }

  /** Queues a command for writing; it settles through its own promise. */
  enqueue(command: Command<unknown>): void {
    if (this.state === 'closing' || this.state === 'closed') {
      command.reject(
        this.givenUp ? lostForGoodError(this.endpoint, this.lastError) : clientClosedError(this.endpoint),
      );
      return;
    }
    if (this.connection === undefined && this.lastError instanceof RespireAuthenticationError) {
      // The last attempt was refused its credentials: say so now rather than at the acquire deadline.
      command.reject(this.unreachableError());
      return;
    }
    const gate = this.options.gate;
    if (gate !== undefined) {
      // An open circuit rejects at once (issue 11: not at the flush, behind other microtasks);
      // with no connection to write on, past the open delay too, instead of letting it wait.
      const rejection =
        this.connection === undefined ? gate.checkWithoutConnection(command) : gate.rejectWhenQueued(command);
      if (rejection !== undefined) {
        command.reject(rejection);
        return;
      }
    }
    const capacity = this.options.maxPendingCommands;
    if (this.queue.length >= capacity) this.makeRoom();
    if (this.queue.length < capacity && this.waiters.length === 0) {
      this.queue.push(command);
      // A command that cannot be written soon starts its acquire deadline now (O(1) per command).
      if (this.connection?.writable !== true) this.stampAcquireDeadline(command, this.options.clock.now());
    } else if (this.waiters.length < capacity) {
      this.waiters.push(command);
      this.stampAcquireDeadline(command, this.options.clock.now());
    } else {
      command.reject(acquireError(this.endpoint, 0));
      return;
    }
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(this.flush);
  }

  /** Adds to the current connection's `writeFirst` set-up; with none, fails unwritten (for the next). */
  writeFirstNow(command: Command<unknown>): void {
    if (this.state === 'closing' || this.state === 'closed') command.reject(clientClosedError(this.endpoint));
    else if (this.connection === undefined) command.reject(unwrittenSetupError(this.endpoint));
    else {
      this.setup.push(command);
      this.scheduleFlush();
    }
  }

  /**
   * Takes out the unwritten commands `select` picks (all by default), in order, to send elsewhere
   * (a moved Cluster slot; a new Sentinel primary, seed 000: before acceptance, commands move and
   * are admitted there). A probe ticket one took while waiting ends with no outcome; each keeps its
   * acquire deadline, so it waits no longer than it would have here.
   */
  takeUnwritten(select: (command: Command<unknown>) => boolean = () => true): Command<unknown>[] {
    const taken = this.unwritten.extract(select);
    for (const command of taken) command.reportHealth(Health.None);
    return taken;
  }

  nextConnection(): Promise<Connection | undefined> {
    return this.state === 'closing' || this.state === 'closed'
      ? Promise.resolve(undefined)
      : this.adoptions.wait();
  }

  pauseWrites(paused: boolean): void {
    this.pauses += paused ? 1 : -1;
    if (this.pauses === 0) this.scheduleFlush();
  }

  async replaceConnection(
    old: Connection,
    endpoint: RespireEndpoint,
    wanted: () => boolean,
    drained: (old: Connection) => Promise<void>,
  ): Promise<boolean> {
    const events = this.eventsFor();
    const next = await connect({ ...this.options, endpoint, signal: this.closing.signal }, events);
    await drained(old);
    // `old` was lost meanwhile (a reset): the replacement is the reconnection, to where MOVING said.
    const lost = this.state === 'reconnecting';
    if (
      !wanted() ||
      (!lost && (this.connection !== old || this.state !== 'ready')) ||
      events.bind(next) !== undefined
    ) {
      next.destroy(undefined);
      return false;
    }
    if (lost) this.clearReconnect();
    this.adopt(next);
    return true;
  }

  /**
   * Stops accepting commands, writes what is queued (commands that cannot be written while
   * disconnected fail unsent), waits for every reply in flight, then QUITs.
   */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    if (this.state !== 'closing') {
      this.state = 'closing';
      this.adoptions.tell(undefined);
      this.closing.abort(clientClosedError(this.endpoint));
      this.clearReconnect();
      if (this.connection === undefined) this.failQueuedByClient();
      else this.flush();
    }
    await this.unwritten.drained();
    // close() never hangs: replies that have no deadline of their own (BLPOP 0) are waited for at
    // most `commandTimeout` (connectTimeout when that is 0), and so is the reply to QUIT.
    const { commandTimeout, connectTimeout } = this.options;
    const boundMs = commandTimeout !== undefined && commandTimeout > 0 ? commandTimeout : connectTimeout;
    const connection = this.connection;
    if (connection !== undefined) {
      connection.boundClose(boundMs);
      await connection.whenIdle();
    }
    this.state = 'closed';
    this.connection = undefined;
    this.acquireTimer.cancel();
    if (connection === undefined) return;
    this.quitting = connection;
    await connection.quit(boundMs);
    this.quitting = undefined;
  }

  /** Closes at once: every queued, waiting and in-flight command fails. */
  destroy(error?: RespireError): void {
    // Closed already, but still waiting for QUIT's answer: destroy() ends that wait too.
    this.quitting?.destroy(undefined);
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.adoptions.tell(undefined);
    this.closing.abort(clientClosedError(this.endpoint));
    this.clearReconnect();
    this.acquireTimer.cancel();
    this.failSetup();
    if (error === undefined) this.failQueuedByClient();
    else this.failQueued(error);
    const connection = this.connection;
    this.connection = undefined;
    // Undefined when the client destroys it: a close by the client, not a failure (onDisconnect).
    connection?.destroy(error);
  }

  /**
   * The queue is full. On a writable connection, write it now rather than at the end of the tick:
   * a burst larger than maxPendingCommands then goes out in several writes instead of failing.
   * Otherwise drop commands that settled while queued (aborted), at most once a tick.
   */
  private makeRoom(): void {
    if (this.connection?.writable && this.setup.length === 0 && this.pauses === 0) {
      this.connection.writeFrom(this.queue, this.options.gate);
      return;
    }
    if (this.compactedThisTick) return;
    this.compactedThisTick = true;
    this.queue.filter((command) => command.state !== CommandState.Settled);
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    this.compactedThisTick = false;
    // A handoff's pause ends when the channel closes: close() writes what is queued, now.
    const connection = this.pauses > 0 && this.state !== 'closing' ? undefined : this.connection;
    if (connection?.writable && this.setup.length > 0) connection.writeFrom(this.setup, undefined);
    if (connection?.writable && this.setup.length === 0) {
      connection.writeFrom(this.queue, this.options.gate);
      while (this.waiters.length > 0 && connection.writable) {
        const room = this.options.maxPendingCommands - this.queue.length;
        for (let i = 0; i < room && this.waiters.length > 0; i++) this.queue.push(this.waiters.shift()!);
        connection.writeFrom(this.queue, this.options.gate);
      }
    }
    if (this.unwritten.empty) this.unwritten.notifyDrained();
    else if (this.pauses > 0 || (connection !== undefined && !connection.writable)) this.stampQueued();
  };

  /**
   * Queued commands that could not be written get their acquire deadline: when the connection is
   * lost (`all`), or asks to drain: then the ones queued since were stamped as they came, so the
   * scan stops at the first stamped one.
   */
  private stampQueued(all = false): void {
    const now = this.options.clock.now();
    for (let i = 0; i < this.queue.length; i++) {
      const command = this.queue.at(i)!;
      if (!all && command.deadline !== 0 && command.state !== CommandState.Settled) break;
      this.stampAcquireDeadline(command, now);
    }
  }

  private stampAcquireDeadline(command: Command<unknown>, now: number): void {
    // One moved here keeps its deadline (takeUnwritten), which this channel's timer must hold too.
    if (command.deadline === 0) command.deadline = now + this.options.acquireTimeout;
    this.acquireTimer.arm(command.deadline);
  }

  /** Fails the commands whose acquire deadline passed; returns the next one outstanding. */
  private readonly onAcquireDeadline = (now: number): number => {
    const capacity = (): Error => acquireError(this.endpoint, this.options.acquireTimeout);
    const next = Math.min(
      expireAcquireDeadlines(this.queue, now, (command) =>
        this.connection !== undefined ? capacity() : this.selectionFailed(command),
      ),
      expireAcquireDeadlines(this.waiters, now, capacity),
    );
    this.unwritten.notifyDrained();
    return next;
  };

  private adopt(connection: Connection): void {
    this.connection = connection;
    this.attempt = 0;
    this.lastError = undefined;
    if (this.state === 'connecting' || this.state === 'reconnecting') this.state = 'ready';
    this.options.onConnect?.(connection);
    const setup = this.options.writeFirst?.(connection);
    if (setup !== undefined) for (const command of setup) this.setup.push(command);
    this.flush();
    this.adoptions.tell(connection);
  }

  /**
   * The events of one connection. It can end between its handshake and the channel taking it
   * (the server closing right after answering): `bind` then returns why, and the channel must not
   * adopt it, or it would wait for a 'drain' from a dead socket for ever.
   */
  private eventsFor() {
    let self: Connection | undefined;
    let endedEarly: RespireError | undefined;
    return {
      // Maintenance notifications are the channel's own (PROTOCOL.md §5); other pushes go on.
      onPush: (frame: RespValue[]) =>
        this.options.maintenance?.onPush(frame, this) || this.options.onPush?.(frame),
      onDrain: () => {
        if (this.connection !== undefined && this.connection === self) this.flush();
      },
      onClose: (error: RespireError | undefined) => {
        if (self === undefined) {
          endedEarly = error ?? new RespireConnectionError('connection closed', { endpoint: this.endpoint });
          return;
        }
        this.options.onDisconnect?.(error, this.connection !== self);
        if (this.connection !== self) return;
        this.connection = undefined;
        this.failSetup();
        this.onConnectionLost(error);
      },
      bind(connection: Connection): RespireError | undefined {
        self = connection;
        return endedEarly;
      },
    };
  }

  private onConnectionLost(error: RespireError | undefined): void {
    this.lastError = error;
    if (this.state === 'closing' || this.state === 'closed') {
      this.failQueuedByClient();
      return;
    }
    this.state = 'reconnecting';
    this.stampQueued(true);
    this.scheduleReconnect(
      error ?? new RespireConnectionError('connection closed', { endpoint: this.endpoint }),
    );
  }

  private scheduleReconnect(cause: RespireError): void {
    const { reconnect, random } = this.options;
    const delay =
      reconnect === false
        ? false
        : askReconnectPolicy(
            reconnect,
            ++this.attempt,
            cause,
            this.options.onReconnectPolicyError ?? ignore,
            random,
          );
    if (delay === false) {
      this.state = 'closed';
      this.givenUp = true;
      this.acquireTimer.cancel();
      this.failQueued((command) => this.selectionFailed(command));
      return;
    }
    this.options.onReconnectScheduled?.(this.attempt, delay, cause);
    this.reconnectTimer = startTimer(this.options.clock, this.reconnect, delay);
  }

  private readonly reconnect = (): void => {
    this.reconnectTimer = undefined;
    if (this.state !== 'reconnecting') return;
    const events = this.eventsFor();
    dial(this.options, events, this.closing.signal).then(
      (connection) => {
        if (this.state !== 'reconnecting') {
          connection.destroy(undefined);
          return;
        }
        const endedEarly = events.bind(connection);
        if (endedEarly === undefined) {
          this.adopt(connection);
          return;
        }
        this.lastError = endedEarly;
        this.scheduleReconnect(endedEarly);
      },
      (error: RespireError) => {
        this.lastError = error;
        if (this.state !== 'reconnecting') return;
        // Refused credentials (a rotated password) are not a sick endpoint: waiting commands fail
        // with the cause now, and nothing is recorded (seed 000 "Health classification").
        if (error instanceof RespireAuthenticationError) this.failQueued(this.unreachableError());
        this.scheduleReconnect(error);
      },
    );
  };

  private clearReconnect(): void {
    stopTimer(this.options.clock, this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  /**
   * Rejects every queued and waiting command, with `error` or the error it returns for each, and
   * wakes close() waiting for the queue to drain.
   */
  private failQueued(error: Error | ((command: Command<unknown>) => Error)): void {
    this.unwritten.drain((command) => command.reject(typeof error === 'function' ? error(command) : error));
  }

  /** The connection `setup` was meant for ended before writing it: none of it reached the server. */
  private failSetup(): void {
    const error = unwrittenSetupError(this.endpoint);
    for (let command = this.setup.shift(); command !== undefined; command = this.setup.shift())
      command.reject(error);
  }

  /**
   * The client closed the channel: what still waits fails, a failure the client caused, so a
   * probe ticket taken while waiting ends with no outcome (seed 000 "Health classification").
   */
  private failQueuedByClient(): void {
    const error = clientClosedError(this.endpoint);
    this.failQueued((command) => {
      command.reportHealth(Health.None);
      return error;
    });
  }

  /**
   * No connection came in time: a selection failure (seed 000), told to the gate if there is one,
   * unless the credentials were refused (authentication is never recorded).
   */
  private selectionFailed(command: Command<unknown>): Error {
    const error = this.unreachableError();
    if (this.options.gate === undefined || error instanceof RespireAuthenticationError) return error;
    return this.options.gate.selectionFailed(command, error);
  }

  private unreachableError(): RespireConnectionError {
    return unreachableError(this.endpoint, this.lastError);
  }
}

function ignore(): void {}

export { clientClosedError };
