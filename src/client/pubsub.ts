// The subscriber side of pub/sub (issue 3, PROTOCOL.md §1.3): one dedicated, lazily opened
// connection for SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE, so RESP2 subscriber mode never restricts the
// shared pipeline; listener fan-out; and restoring every confirmed subscription on a new connection
// before anything else is written on it. PUBLISH goes through the ordinary pipeline instead.
import { RespireConnectionError, RespireServerError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { Channel, type ChannelOptions, clientClosedError } from '../transport/channel.js';
import { Command, CommandFlags } from '../transport/command.js';
import type { Connection } from '../transport/connection.js';
import { Health } from '../transport/health.js';
import { rethrowAsync } from '../util/rethrow-async.js';
import { RingQueue } from '../util/ring-queue.js';
import { observeConnections } from './diagnostics.js';
import {
  type PubSubListener,
  SUBSCRIBE_COMMAND,
  SUBSCRIPTION_KINDS,
  type SubscriptionKind,
  SubscriptionRegistry,
  UNSUBSCRIBE_COMMAND,
} from './pubsub-registry.js';

export type { PubSubListener, SubscriptionKind } from './pubsub-registry.js';

export interface SubscriberOptions {
  /** How to reach the server; `onPush` and `onConnect` are the subscriber's own. */
  channel: Omit<ChannelOptions, 'onPush' | 'onConnect'>;
  /** Reply deadline of (un)subscribe commands, ms; 0 = none. */
  commandTimeout: number;
  /**
   * A listener threw, or restoring a subscription was refused after a reconnect. Default: the error
   * is rethrown from a microtask, so it surfaces like any uncaught exception and is never silently
   * lost. Either way every other listener still receives the message.
   */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * The server dropped shard channels by itself (a slot moved to another Cluster node; PROTOCOL.md
   * §1.3). They are already forgotten here; Cluster subscribes the listeners on the new owner.
   */
  onShardChannelDropped?: ((channel: string, listeners: ReadonlySet<PubSubListener>) => void) | undefined;
}

export class Subscriber {
  private readonly registry = new SubscriptionRegistry();
  private channel: Channel | undefined;
  /** Commands issued while the connection is being opened, written in order once it is. */
  private backlog: Command<void>[] | undefined;
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
    const { fresh, existing, added } = this.registry.add(kind, list, listener);
    const waits = existing.map((entry) => entry.ready);
    if (fresh.length > 0) {
      const ready: Promise<void> = this.send(SUBSCRIBE_COMMAND[kind], fresh).then(() => {
        for (const name of fresh) {
          const entry = this.registry.get(kind, name);
          if (entry?.ready === ready) entry.confirmed = true;
        }
      });
      // Later subscribers of the same names wait on it too; each handles the failure itself.
      ready.catch(ignore);
      for (const name of fresh) this.registry.get(kind, name)!.ready = ready;
      waits.push(ready);
    }
    return Promise.all(waits).then(
      () => undefined,
      (error: unknown) => {
        if (added.length > 0) this.unsubscribe(kind, added, listener).catch(ignore);
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
    // Without a connection (never opened, or closed) the server holds no subscription to undo.
    if (emptied.length === 0 || this.channel === undefined || this.closed) return Promise.resolve();
    this.registry.beginUnsubscribe(kind, emptied);
    const settle = (): void => this.registry.settleUnsubscribe(kind, emptied);
    const sent = this.send(UNSUBSCRIBE_COMMAND[kind], emptied);
    sent.then(settle, settle);
    return sent;
  }

  /** The names of `kind` that have listeners (including ones still awaiting confirmation). */
  subscriptions(kind: SubscriptionKind): string[] {
    return this.registry.names(kind);
  }

  /** Waits for (un)subscribe commands in flight, then closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.opening;
    await this.channel?.close();
  }

  destroy(): void {
    this.closed = true;
    this.destroyed = true;
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
    for (const listener of entry.listeners) {
      try {
        listener(message, channel, pattern);
      } catch (error) {
        this.report(error);
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

  /** Sends a (un)subscribe command on the subscriber connection, opening it on first use. */
  private send(commandName: string, names: string[]): Promise<void> {
    const command = subscriptionCommand(commandName, names, this.options.commandTimeout);
    if (this.channel === undefined) {
      // No connection yet: an open circuit rejects before a socket is opened to the sick endpoint
      // (seed 000 "Rejections"); past the open delay the command takes its probe slot now.
      const rejection = this.options.channel.gate?.checkWithoutConnection(command as Command<unknown>);
      if (rejection !== undefined) {
        command.reject(rejection);
        return command.promise;
      }
      this.open();
    }
    if (this.backlog !== undefined) this.backlog.push(command);
    else this.channel!.enqueue(command as Command<unknown>);
    return command.promise;
  }

  private open(): void {
    // diagnostics.ts: the subscriber connection's connect, close and reconnects.
    const observer = observeConnections(this.options.channel.endpoint, 'subscriber');
    const channel = new Channel({
      ...this.options.channel,
      onPush: this.handlePush,
      onConnect: (connection) => {
        observer.connected();
        this.restore(connection);
      },
      onDisconnect: observer.disconnected,
      onReconnectScheduled: observer.reconnecting,
    });
    const backlog: Command<void>[] = [];
    this.channel = channel;
    this.backlog = backlog;
    this.opening = channel.start().then(
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
   * ChannelOptions.onConnect: before queued commands are written on a new connection, subscribe
   * again to every name the server had confirmed. Names still awaiting confirmation need nothing:
   * their command is either still queued, or failed with the old connection and was taken back.
   */
  private readonly restore = (connection: Connection): void => {
    const queue = new RingQueue<Command<unknown>>();
    for (const kind of SUBSCRIPTION_KINDS) {
      const names = this.registry.confirmedNames(kind);
      if (names.length === 0) continue;
      // In Cluster each SSUBSCRIBE must stay within one slot, so shard channels go one by one.
      const groups = kind === 'shard' ? names.map((name) => [name]) : [names];
      for (const group of groups) {
        const command = subscriptionCommand(SUBSCRIBE_COMMAND[kind], group, this.options.commandTimeout);
        command.promise.catch((error: unknown) => this.onRestoreFailed(kind, group, error));
        queue.push(command as Command<unknown>);
      }
    }
    if (queue.length > 0) connection.writeFrom(queue, undefined);
    for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
      command.reject(
        new RespireConnectionError('the connection closed', {
          endpoint: connection.endpoint,
          written: false,
        }),
      );
    }
  };

  /** Refused by the server: forget the names and say so. Lost with the connection: retried next time. */
  private onRestoreFailed(kind: SubscriptionKind, names: string[], error: unknown): void {
    if (!(error instanceof RespireServerError)) return;
    this.registry.drop(kind, names);
    this.report(error);
  }

  private report(error: unknown): void {
    const onError = this.options.onError;
    if (onError !== undefined) onError(error);
    else rethrowAsync(error);
  }
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

/** A (P|S)(UN)SUBSCRIBE, complete once every name is confirmed. */
function subscriptionCommand(
  commandName: string,
  names: readonly string[],
  timeoutMs: number,
): Command<void> {
  const command = new Command<void>(
    [commandName, ...names],
    CommandFlags.Subscription,
    undefined,
    undefined,
    timeoutMs,
  );
  command.confirmationsLeft = names.length;
  return command;
}

function text(value: RespValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

function ignore(): void {}
