// RespireClient for one standalone endpoint (API.md "Connecting"): a shared auto-pipelined
// connection for ordinary commands, dedicated connections for blocking ones, and the retry rule
// (only commands never written, or read-only ones; never a circuit rejection).
import {
  RespireAuthenticationError,
  RespireCircuitOpenError,
  RespireConfigurationError,
  RespireConnectionError,
  type RespireEndpoint,
  RespireTimeoutError,
} from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import { Channel, type ChannelOptions } from '../transport/channel.js';
import {
  type Command,
  CommandFlags,
  type CommandOptions,
  type ReplyTransform,
} from '../transport/command.js';
import { Batch, type BatchDispatcher } from './batch.js';
import { Commander } from './commander.js';
import type { RedisArgument } from './commands/caller.js';
import { DedicatedPool } from './dedicated-pool.js';
import { KeyPrefixView } from './key-prefix-view.js';
import { Transaction } from './multi.js';
import { type ResolvedOptions, type RespireOptions, resolveOptions } from './options.js';
import { prepareCommand } from './prepare-command.js';
import { type PubSubListener, Subscriber } from './pubsub.js';
import { isReadOnlyCommand } from './read-only-commands.js';
import { TransactionTracker } from './transaction-run.js';
import { type WatchSession, WatchSessions } from './watch-session.js';

export class RespireClient extends Commander {
  /** Connects and completes the handshake; rejects with the first connection's error. */
  static async connect(options: RespireOptions): Promise<RespireClient> {
    const client = new RespireClient(resolveOptions(options));
    await client.main.start();
    return client;
  }

  private readonly main: Channel;
  private readonly dedicated: DedicatedPool;
  /** Pub/sub on a connection of its own, opened on the first subscribe (pubsub.ts). */
  private readonly subscriber: Subscriber;
  private closing: Promise<void> | undefined;
  /** Transactions on `main` whose rest must not follow their MULTI onto a new connection. */
  private readonly transactions = new TransactionTracker();
  private readonly sessions: WatchSessions;
  /** How batches send their entries: contiguously, in one go (batch.ts). */
  private readonly batchDispatcher: BatchDispatcher;

  private constructor(private readonly options: ResolvedOptions) {
    super();
    const channelOptions: ChannelOptions = { ...options, tls: options.tls };
    this.main = new Channel({ ...channelOptions, onConnect: this.transactions.onConnect });
    this.dedicated = new DedicatedPool(channelOptions, options.maxDedicatedConnections);
    this.sessions = new WatchSessions(this.dedicated, options.commandTimeout);
    this.batchDispatcher = {
      commandTimeout: options.commandTimeout,
      dispatch: (commands) => {
        for (const command of commands) if (!command.settled) this.route(command);
      },
    };
    this.subscriber = new Subscriber({ channel: channelOptions, commandTimeout: options.commandTimeout });
  }

  /** The configured data endpoint. */
  get endpoint(): RespireEndpoint {
    return this.options.endpoint;
  }

  /**
   * A view that prefixes every key argument (found from the command table's key specs) and shares
   * this client's connections, and later its circuits. Replies are not rewritten.
   */
  withKeyPrefix(prefix: string | Buffer): KeyPrefixView {
    if ((typeof prefix !== 'string' && !Buffer.isBuffer(prefix)) || prefix.length === 0) {
      throw new RespireConfigurationError('withKeyPrefix', prefix, 'a non-empty string or Buffer');
    }
    return new KeyPrefixView(this, prefix);
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    if (this.options.retryAttempts > 1) return this.callWithRetry(args, transform, options, flags);
    return this.callOnce(args, transform, options, flags);
  }

  /**
   * SUBSCRIBE: `listener` hears every message on these channels. Runs on a dedicated subscriber
   * connection, restored after a reconnect; resolves once the server confirmed. A listener that
   * throws does not keep the message from the others; its error is rethrown from a microtask.
   */
  subscribe(channels: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.subscriber.subscribe('channel', channels, listener);
  }

  /** PSUBSCRIBE: as `subscribe`, for glob patterns; listeners also get the matching pattern. */
  psubscribe(patterns: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.subscriber.subscribe('pattern', patterns, listener);
  }

  /** SSUBSCRIBE: as `subscribe`, for shard channels (SPUBLISH). */
  ssubscribe(shardChannels: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.subscriber.subscribe('shard', shardChannels, listener);
  }

  /**
   * Takes `listener` (every listener when omitted) off these channels (every channel when omitted).
   * A channel left without listeners is unsubscribed; resolves once the server confirmed.
   */
  unsubscribe(channels?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.subscriber.unsubscribe('channel', channels, listener);
  }

  /** As `unsubscribe`, for patterns. */
  punsubscribe(patterns?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.subscriber.unsubscribe('pattern', patterns, listener);
  }

  /** As `unsubscribe`, for shard channels. */
  sunsubscribe(shardChannels?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.subscriber.unsubscribe('shard', shardChannels, listener);
  }

  /** A batch: queued locally, written in one go by `execute()` (batch.ts). */
  batch(): Batch {
    return new Batch(this.batchDispatcher);
  }

  /** A MULTI/EXEC transaction on the shared connection, sent in one write by `exec()` (multi.ts). */
  multi(): Transaction {
    return new Transaction({
      target: this.main,
      commandTimeout: this.options.commandTimeout,
      watched: false,
      tracker: this.transactions,
    });
  }

  /**
   * Borrows a dedicated connection and sends WATCH on it; resolves with the session once WATCH
   * succeeded. See watch-session.ts for when a session gives its connection back.
   */
  watch(keys: RedisArgument | readonly RedisArgument[]): Promise<WatchSession> {
    return this.sessions.watch(keys);
  }

  /**
   * Waits for every reply in flight, then closes all connections. Commands issued after this
   * reject with RespireConnectionError (`written: false`).
   */
  close(): Promise<void> {
    this.closing ??= Promise.all([
      this.main.close(),
      this.dedicated.close(),
      this.subscriber.close(),
      this.sessions.releaseAll(),
    ]).then(() => undefined);
    return this.closing;
  }

  /** Closes every connection at once; what is queued or in flight rejects. */
  destroy(): void {
    this.main.destroy();
    this.dedicated.destroy();
    this.sessions.destroyAll();
    this.subscriber.destroy();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private callOnce<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
  ): Promise<T> {
    const command = prepareCommand(args, transform, options, flags, this.options.commandTimeout);
    if (!command.settled) this.route(command as Command<unknown>);
    return command.promise;
  }

  /** Blocking commands get a dedicated connection; the rest share the pipeline. */
  private route(command: Command<unknown>): void {
    if ((command.flags & CommandFlags.Blocking) !== 0) this.runDedicated(command);
    else this.main.enqueue(command);
  }

  /** A blocking command borrows a connection of its own for as long as it runs. */
  private runDedicated(command: Command<unknown>): void {
    this.dedicated.acquire().then(
      (channel) => {
        channel.enqueue(command);
        command.promise.then(
          () => this.dedicated.release(channel),
          () => {
            // Aborted while blocked: the server is still blocked on that connection, so drop it.
            if (command.discardReply || channel.current === undefined) this.dedicated.discard(channel);
            else this.dedicated.release(channel);
          },
        );
      },
      (error) => command.reject(error),
    );
  }

  private async callWithRetry<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce(args, transform, options, flags);
      } catch (error) {
        if (attempt >= this.options.retryAttempts || !mayRetry(error, args)) throw error;
      }
    }
  }
}

/**
 * API.md `retry`: a command may be retried when it never reached Redis, or when it only reads.
 * Never a circuit rejection, never an authentication failure, never an ambiguous write.
 */
function mayRetry(error: unknown, args: readonly RespArgument[]): boolean {
  if (error instanceof RespireCircuitOpenError || error instanceof RespireAuthenticationError) return false;
  if (!(error instanceof RespireConnectionError || error instanceof RespireTimeoutError)) return false;
  return error.written === false || isReadOnlyCommand(args);
}
