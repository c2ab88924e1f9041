// The subscriber side of pub/sub (issue 3, PROTOCOL.md §1.3): one dedicated, lazily opened
// connection for SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE, so RESP2 subscriber mode never restricts the
// shared pipeline; listener fan-out; restoring every confirmed subscription on a new connection
// before anything else is written on it (pubsub-restore.ts). PUBLISH goes through the ordinary
// pipeline instead. The connection is opened through the endpoint's circuit, like a dedicated one.

import { RespireConnectionError } from '../../errors.js';
import type { RespValue } from '../../resp/types.js';
import { Channel, type ChannelOptions, clientClosedError } from '../../transport/channel.js';
import type { Command } from '../../transport/command.js';
import { Health } from '../../transport/health.js';
import { describeEndpoint } from '../../util/describe-endpoint.js';
import { startTimer, stopTimer, type Timer } from '../../util/timers.js';
import { observeConnections, traceCommand } from '../diagnostics.js';
import type { CircuitGate } from '../node/circuit-gate.js';
import { type PubSubErrorEvent, type PubSubErrorListener, PubSubErrors } from './pubsub-errors.js';
import {
  type PubSubListener,
  SUBSCRIBE_COMMAND,
  SUBSCRIPTION_KINDS,
  type Subscription,
  type SubscriptionKind,
  SubscriptionRegistry,
  UNSUBSCRIBE_COMMAND,
} from './pubsub-registry.js';
import { restoreCommands, subscriptionCommand } from './pubsub-restore.js';

export type { PubSubErrorEvent, PubSubErrorListener, PubSubErrorSource } from './pubsub-errors.js';
export type { PubSubListener, SubscriptionKind } from './pubsub-registry.js';

export interface SubscriberOptions {
  /** How to reach the server; `onPush`, `onConnect` and `writeFirst` are the subscriber's own. */
  channel: Omit<ChannelOptions, 'onPush' | 'onConnect' | 'writeFirst'>;
  /** Reply deadline of (un)subscribe commands, ms; 0 = none. */
  commandTimeout: number;
  /** The endpoint's circuit: checked before the connection is opened; none without a breaker. */
  circuit?: CircuitGate | undefined;
  /**
   * The server dropped shard channels by itself (a slot moved to another Cluster node; PROTOCOL.md
   * §1.3). They are already forgotten here; Cluster subscribes the listeners on the new owner.
   */
  onShardChannelDropped?: ((channel: string, listeners: ReadonlySet<PubSubListener>) => void) | undefined;
}

export class Subscriber {
  private readonly registry = new SubscriptionRegistry();
  private readonly errors = new PubSubErrors();
  private channel: Channel | undefined;
  /** Commands issued while the connection is being opened, written in order once it is. */
  private backlog: Command<number>[] | undefined;
  /** Settles once the connection opened (or failed to). */
  private opening: Promise<void> = Promise.resolve();
  private closed = false;
  private destroyed = false;

  constructor(private readonly options: SubscriberOptions) {}

  /**
   * Adds `listener` to each name, sending the subscribe command for names nobody listened to yet.
   * Resolves once the server confirmed every name; on failure the listener is taken back.
   */
  subscribe(
    kind: SubscriptionKind,
    names: string | readonly string[],
    listener: PubSubListener,
  ): Promise<void> {
    if (this.closed) return Promise.reject(clientClosedError(this.options.channel.endpoint));
    let list: string[];
    try {
      list = nameList(names);
      if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    } catch (error) {
      return Promise.reject(error);
    }
    return this.subscribeAll(kind, [{ names: list, listeners: [listener] }]);
  }

  /**
   * Each of `entries`' listeners on each of its names, with one subscribe command for every name
   * nobody listened to yet (a Sentinel switch moves all of a node's subscriptions of a kind so).
   * Resolves once the server confirmed every name; on failure the listeners are taken back.
   */
  subscribeAll(
    kind: SubscriptionKind,
    entries: readonly { readonly names: readonly string[]; readonly listeners: readonly PubSubListener[] }[],
  ): Promise<void> {
    if (this.closed) return Promise.reject(clientClosedError(this.options.channel.endpoint));
    const fresh: Subscription[] = [];
    const waits: Promise<void>[] = [];
    const added: { entries: Subscription[]; listener: PubSubListener }[] = [];
    for (const { names, listeners } of entries) {
      for (const listener of listeners) {
        const result = this.registry.add(kind, names, listener);
        fresh.push(...result.fresh);
        for (const entry of result.existing) waits.push(entry.ready);
        added.push({ entries: result.added, listener });
      }
    }
    if (fresh.length > 0) {
      const ready = this.sendSubscribe(kind, fresh).then(() => {
        for (const entry of fresh) if (entry.ready === ready) entry.confirmed = true;
      });
      // Later subscribers of the same names wait on it too; each handles the failure itself.
      ready.catch(ignore);
      for (const entry of fresh) entry.ready = ready;
      waits.push(ready);
    }
    return Promise.all(waits).then(
      () => undefined,
      (error: unknown) => {
        // Only the entries this call added to: a later subscribe of the same name keeps its own.
        const emptied = new Set<string>();
        for (const { entries: taken, listener } of added) {
          for (const name of this.registry.takeBack(kind, taken, listener)) emptied.add(name);
        }
        if (emptied.size > 0) this.sendUnsubscribe(kind, [...emptied]).catch(ignore);
        throw error;
      },
    );
  }

  /**
   * Removes `listener` (every listener when omitted) from each name (every name of the kind when
   * omitted). Names left without listeners are unsubscribed; resolves once the server confirmed.
   */
  unsubscribe(
    kind: SubscriptionKind,
    names?: string | readonly string[],
    listener?: PubSubListener,
  ): Promise<void> {
    let emptied: string[];
    try {
      emptied = this.registry.remove(kind, names === undefined ? undefined : nameList(names), listener);
    } catch (error) {
      return Promise.reject(error);
    }
    return emptied.length === 0 ? Promise.resolve() : this.sendUnsubscribe(kind, emptied);
  }

  /**
   * Forgets names without telling the server (their connection is closing): a message for them
   * still arriving there, before it closes, reaches no listener.
   */
  forget(kind: SubscriptionKind, names: readonly string[]): void {
    this.registry.drop(kind, names);
  }

  /** Closed (its node closed or was replaced): what it held is gone with its connection. */
  isClosed(): boolean {
    return this.closed;
  }

  /** The names of `kind` that have listeners (including ones still awaiting confirmation). */
  subscriptions(kind: SubscriptionKind): string[] {
    return this.registry.names(kind);
  }

  /** `redis.onPubSubError`: see pubsub-errors.ts. Returns the function that removes the listener. */
  onError(listener: PubSubErrorListener): () => void {
    return this.errors.add(listener);
  }

  /**
   * Waits for (un)subscribe commands in flight, then closes the connection. With no reply deadline
   * (`commandTimeout: 0`) a server that stopped answering would keep it waiting for good, so the
   * wait is then bounded by `connectTimeout`, after which what is in flight fails.
   */
  async close(): Promise<void> {
    this.closed = true;
    // Nothing is restored from now on: subscribes waiting for a restore fail now.
    this.registry.failRestores(clientClosedError(this.options.channel.endpoint));
    await this.opening;
    const channel = this.channel;
    if (channel === undefined) return;
    if (this.options.commandTimeout > 0) return channel.close();
    const clock = this.options.channel.clock;
    let timer: Timer | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = startTimer(
        clock,
        () => {
          channel.destroy();
          resolve();
        },
        this.options.channel.connectTimeout,
      );
    });
    await Promise.race([channel.close(), bound]);
    stopTimer(clock, timer);
  }

  destroy(): void {
    this.closed = true;
    this.destroyed = true;
    this.registry.failRestores(clientClosedError(this.options.channel.endpoint));
    this.channel?.destroy();
    // Commands waiting for the connection being opened fail now, not when the abandoned handshake
    // gives up; the client caused it, so a probe slot one took is freed (seed 000).
    const backlog = this.backlog;
    if (backlog === undefined) return;
    const error = clientClosedError(this.options.channel.endpoint);
    for (const command of backlog.splice(0)) {
      command.reportHealth(Health.None);
      command.reject(error);
    }
  }

  /**
   * Settles once every subscribe still awaiting its first confirmation is confirmed or failed;
   * undefined when none is (a failover switch moves such subscriptions once they settle).
   */
  whenPendingSettle(): Promise<void> | undefined {
    const pending: Promise<void>[] = [];
    for (const kind of SUBSCRIPTION_KINDS) {
      for (const name of this.registry.names(kind)) {
        const entry = this.registry.get(kind, name)!;
        if (!entry.confirmed) pending.push(entry.ready);
      }
    }
    return pending.length === 0 ? undefined : Promise.allSettled(pending).then(ignore);
  }

  /**
   * Subscribes (of the kinds `take` accepts) still waiting for the connection to open (nothing
   * written): taken off this node with their listeners and handed to `elsewhere` (a failover switch
   * makes them on the new member); each caller's subscribe settles as that does. Unsubscribes stay.
   */
  moveUnwritten(
    elsewhere: (
      kind: SubscriptionKind,
      entries: { names: string[]; listeners: PubSubListener[] }[],
    ) => Promise<void>,
    take: (kind: SubscriptionKind) => boolean = () => true,
  ): void {
    const backlog = this.backlog;
    if (backlog === undefined) return;
    for (const command of [...backlog]) {
      const kind = SUBSCRIPTION_KINDS.find((candidate) => SUBSCRIBE_COMMAND[candidate] === command.name);
      if (kind === undefined || command.settled || !take(kind)) continue;
      backlog.splice(backlog.indexOf(command), 1);
      const names = command.args.slice(1).map(String);
      const entries = names.flatMap((name) => {
        const entry = this.registry.get(kind, name);
        return entry === undefined ? [] : [{ names: [name], listeners: [...entry.listeners] }];
      });
      // Forgotten here first: nothing was written, so there is nothing to unsubscribe.
      this.registry.remove(kind, names, undefined);
      command.reportHealth(Health.None);
      elsewhere(kind, entries).then(
        () => command.resolve(names.length),
        (error: unknown) => command.reject(error),
      );
    }
  }

  /** Every subscription the server confirmed, with its listeners (to move them to another node). */
  confirmedSubscriptions(): { kind: SubscriptionKind; name: string; listeners: PubSubListener[] }[] {
    const all: { kind: SubscriptionKind; name: string; listeners: PubSubListener[] }[] = [];
    for (const kind of ['channel', 'pattern', 'shard'] as const) {
      for (const entry of this.registry.confirmed(kind))
        all.push({ kind, name: entry.name, listeners: [...entry.listeners] });
    }
    return all;
  }

  /** ChannelOptions.onPush: messages to listeners, drops by the server to the Cluster hook. */
  readonly handlePush = (frame: RespValue[]): void => {
    switch (text(frame[0])?.toLowerCase()) {
      case 'message':
        this.deliver('channel', frame[1], frame[1], frame[2]);
        return;
      case 'pmessage':
        this.deliver('pattern', frame[1], frame[2], frame[3]);
        return;
      case 'smessage':
        this.deliver('shard', frame[1], frame[1], frame[2]);
        return;
      case 'sunsubscribe':
        this.onShardUnsubscribe(frame[1]);
        return;
      default:
      // Confirmations complete their command in the Connection; unknown kinds are not ours.
    }
  };

  private deliver(
    kind: SubscriptionKind,
    nameValue: RespValue | undefined,
    channelValue: RespValue | undefined,
    message: RespValue | undefined,
  ): void {
    const name = text(nameValue);
    const channel = text(channelValue);
    if (name === undefined || channel === undefined) return;
    if (typeof message !== 'string' && !Buffer.isBuffer(message)) return;
    const entry = this.registry.get(kind, name);
    if (entry === undefined) return; // unsubscribed while the message was on its way
    const pattern = kind === 'pattern' ? name : undefined;
    // The listeners as they were when the message arrived (issue 19 #13).
    entry.snapshot ??= [...entry.listeners];
    for (const listener of entry.snapshot) {
      try {
        listener(message, channel, pattern);
      } catch (error) {
        this.report(error, { source: 'listener', kind, names: [name] });
      }
    }
  }

  /** An SUNSUBSCRIBE nobody asked for: the server no longer serves that shard channel here. */
  private onShardUnsubscribe(nameValue: RespValue | undefined): void {
    const name = text(nameValue);
    if (name === undefined || this.registry.isUnsubscribing('shard', name)) return;
    for (const entry of this.registry.drop('shard', [name])) {
      this.options.onShardChannelDropped?.(name, entry.listeners);
    }
  }

  /**
   * SUBSCRIBE for entries just created. Subscribing is idempotent, so one lost with its connection
   * after the write is sent once more on the next connection, for the entries still wanted.
   */
  private sendSubscribe(kind: SubscriptionKind, entries: readonly Subscription[]): Promise<number> {
    const names = entries.map((entry) => entry.name);
    return this.send(SUBSCRIBE_COMMAND[kind], names).catch((error: unknown) => {
      if (!lostAfterWrite(error) || this.closed || this.channel === undefined) throw error;
      const wanted = entries.filter((entry) => this.registry.isCurrent(kind, entry));
      if (wanted.length === 0) throw error;
      return this.send(
        SUBSCRIBE_COMMAND[kind],
        wanted.map((entry) => entry.name),
      );
    });
  }

  /**
   * UNSUBSCRIBE for names left without listeners. Without a connection (never opened, or closed)
   * the server holds nothing to undo; one lost with its connection undid them all as well.
   */
  private sendUnsubscribe(kind: SubscriptionKind, names: string[]): Promise<void> {
    if (this.channel === undefined || this.closed) return Promise.resolve();
    this.registry.beginUnsubscribe(kind, names);
    const settle = (): void => this.registry.settleUnsubscribe(kind, names);
    const sent = this.send(UNSUBSCRIBE_COMMAND[kind], names);
    sent.then(settle, settle);
    return sent.then(ignore, (error: unknown) => {
      if (!lostAfterWrite(error)) throw error;
    });
  }

  /** Sends a (un)subscribe command on the subscriber connection, opening it on first use. */
  private send(commandName: string, names: string[]): Promise<number> {
    const command = subscriptionCommand(commandName, names, this.options.commandTimeout);
    const { endpoint, clock } = this.options.channel;
    traceCommand(command as Command<unknown>, endpoint, clock);
    if (this.channel === undefined) this.open();
    if (this.backlog !== undefined) this.backlog.push(command);
    else this.channel!.enqueue(command as Command<unknown>);
    return command.promise;
  }

  /**
   * Opens the connection, through the circuit when there is one (circuit-gate.ts `borrow`): while
   * it rejects no socket is opened and the backlog fails with the rejection; failing to open counts
   * as one selection failure (seed 000), whatever the number of commands waiting.
   */
  private open(): void {
    // diagnostics.ts: the subscriber connection's connect, close and reconnects.
    const observer = observeConnections(this.options.channel.endpoint, 'subscriber');
    const policy = this.options.channel.reconnect;
    const channel: Channel = new Channel({
      ...this.options.channel,
      onPush: this.handlePush,
      onConnect: observer.connected,
      writeFirst: () =>
        restoreCommands({
          registry: this.registry,
          endpoint: this.options.channel.endpoint,
          commandTimeout: this.options.commandTimeout,
          // The one-by-one retries of a refused command: turned away by a full send queue, they
          // would be lost without a sound, still marked subscribed.
          send: (kind, names) => {
            const command = subscriptionCommand(SUBSCRIBE_COMMAND[kind], names, this.options.commandTimeout);
            channel.writeFirstNow(command as Command<unknown>);
            return command.promise;
          },
          report: (error, event) => this.report(error, event),
        }),
      onDisconnect: (error) => {
        // Lost (not closed by the client): held names wait for their restore (pubsub-registry.ts).
        if (error !== undefined) this.registry.awaitRestore();
        observer.disconnected(error);
      },
      onReconnectScheduled: observer.reconnecting,
      // Told when the policy gives up, to forget what the connection held (issue 19 #11).
      reconnect: (attempt, cause) => {
        const delay = policy === false ? false : policy(attempt, cause);
        if (delay === false) this.gaveUp(channel, cause);
        return delay;
      },
    });
    const backlog: Command<number>[] = [];
    this.channel = channel;
    this.backlog = backlog;
    const start = (): Promise<Channel> => channel.start().then(() => channel);
    const started =
      this.options.circuit === undefined
        ? start()
        : this.options.circuit.borrow({ acquire: start, isClosed: () => this.closed });
    this.opening = started.then(
      () => {
        this.backlog = undefined;
        // Destroyed while connecting: the Channel adopted the connection anyway, so end it here.
        if (this.destroyed) channel.current?.destroy(undefined);
        for (const command of backlog) channel.enqueue(command as Command<unknown>);
      },
      (error: unknown) => {
        this.backlog = undefined;
        if (this.channel === channel) this.channel = undefined;
        for (const command of backlog) command.reject(error);
      },
    );
  }

  /**
   * The reconnect policy gave up: the server forgot every subscription with the connection. They
   * are forgotten here too and reported, and the next subscribe opens a new connection, so a name
   * subscribed again is really sent (not answered by its old confirmation).
   */
  private gaveUp(channel: Channel, cause: Error): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    const error = new RespireConnectionError(
      `the subscriber connection to ${describeEndpoint(channel.endpoint)} gave up reconnecting: ${cause.message}`,
      { endpoint: channel.endpoint, cause },
    );
    // Subscribes waiting for a restore get the reason none will come.
    this.registry.failRestores(error);
    const cleared = this.registry.clear();
    const names: string[] = [];
    for (const kind of SUBSCRIPTION_KINDS) for (const entry of cleared[kind]) names.push(entry.name);
    if (names.length === 0) return;
    // After the channel has failed what it still held, so listeners see a settled state.
    queueMicrotask(() => this.report(error, { source: 'lost', kind: undefined, names }));
  }

  /** Tells the `onPubSubError` listeners (also a Cluster move that failed on this node). */
  report(error: unknown, event: PubSubErrorEvent): void {
    this.errors.report(error, event);
  }
}

/** Lost with its connection after the write: the server dropped what the connection held. */
function lostAfterWrite(error: unknown): boolean {
  return error instanceof RespireConnectionError && error.written === true;
}

/** One name or several, as a deduplicated non-empty list. */
function nameList(names: string | readonly string[]): string[] {
  const list = typeof names === 'string' ? [names] : names;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('expected a name or a non-empty array of names');
  }
  for (const name of list) {
    if (typeof name !== 'string') throw new TypeError('names must be strings');
  }
  return [...new Set<string>(list)];
}

function text(value: RespValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

function ignore(): void {}
