// RespireClient for one standalone endpoint (API.md "Connecting"): a shared auto-pipelined
// connection for ordinary commands, dedicated connections for blocking ones, the retry rule
// (only commands never written, or read-only ones; never a circuit rejection), and the endpoint's
// circuit, checked right before every send on each of those connections (circuit-gate.ts).
import {
  RespireAuthenticationError,
  RespireCircuitOpenError,
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
import { CircuitGate, type ClientCircuit } from './circuit-gate.js';
import { Commander } from './commander.js';
import type { RedisArgument } from './commands/caller.js';
import { DedicatedPool } from './dedicated-pool.js';
import { clientErrorReporter, observeConnections, traceCommand } from './diagnostics.js';
import { checkedPrefix, KeyPrefixView } from './key-prefix-view.js';
import { ClientTelemetry } from './metrics.js';
import { Transaction } from './multi.js';
import { type ResolvedOptions, type RespireOptions, resolveOptions } from './options.js';
import { prepareCommand } from './prepare-command.js';
import { type PubSubErrorListener, type PubSubListener, Subscriber } from './pubsub.js';
import { isReadOnlyCommand } from './read-only-commands.js';
import { refusedCommand } from './refused-commands.js';
import { errorSinkFor } from './scripting.js';
import { TransactionTracker } from './transaction-run.js';
import { type SessionPool, type WatchSession, WatchSessions } from './watch-session.js';

export class RespireClient extends Commander {
  /** Connects and completes the handshake; rejects with the first connection's error. */
  static async connect(options: RespireOptions): Promise<RespireClient> {
    const client = new RespireClient(resolveOptions(options));
    await client.main.start();
    return client;
  }

  private readonly main: Channel;
  private readonly dedicated: DedicatedPool;
  /** Lends dedicated connections to blocking commands and WATCH sessions, through the circuit. */
  private readonly lender: SessionPool;
  /** Pub/sub on a connection of its own, opened on the first subscribe (pubsub.ts). */
  private readonly subscriber: Subscriber;
  private closing: Promise<void> | undefined;
  /** Transactions on `main` whose rest must not follow their MULTI onto a new connection. */
  private readonly transactions = new TransactionTracker();
  private readonly sessions: WatchSessions;
  /** How batches send their entries: contiguously, in one go (batch.ts). */
  private readonly batchDispatcher: BatchDispatcher;
  private readonly telemetry: ClientTelemetry;
  /** `redis.client.errors`: told what a caller received; none without that metric. */
  private readonly errorSink: ((error: unknown) => void) | undefined;
  /** The endpoint's circuit, shared by every channel; none without `circuitBreaker` (no per-command work). */
  private readonly gate: CircuitGate | undefined;

  private constructor(private readonly options: ResolvedOptions) {
    super();
    this.telemetry = options.meter === null ? ClientTelemetry.disabled : new ClientTelemetry(options);
    this.errorSink = this.telemetry.errorMetrics ? this.reportError : undefined;
    const gate =
      options.circuitBreaker === null
        ? undefined
        : new CircuitGate({ ...options, circuitBreaker: options.circuitBreaker, telemetry: this.telemetry });
    this.gate = gate;
    // diagnostics.ts `respire:client:error`: a `reconnect` function that failed (issue 19 #5).
    const channelOptions: ChannelOptions = {
      ...options,
      gate,
      onReconnectPolicyError: clientErrorReporter(options.endpoint),
    };
    // diagnostics.ts: `respire:connection:connect` for the shared connection.
    const connections = observeConnections(options.endpoint, 'shared');
    this.main = new Channel({
      ...channelOptions,
      onConnect: () => {
        this.transactions.onConnect();
        connections.connected();
      },
      onDisconnect: connections.disconnected,
      onReconnectScheduled: connections.reconnecting,
    });
    this.dedicated = new DedicatedPool(channelOptions, options.maxDedicatedConnections);
    this.lender = this.dedicatedLender();
    this.sessions = new WatchSessions(this.lender, {
      commandTimeout: options.commandTimeout,
      clock: options.clock,
      errorSink: this.errorSink,
    });
    this.batchDispatcher = {
      commandTimeout: options.commandTimeout,
      errorSink: this.errorSink,
      dispatch: (commands) => {
        for (const command of commands) if (!command.settled) this.route(command);
      },
    };
    this.subscriber = new Subscriber({
      channel: channelOptions,
      commandTimeout: options.commandTimeout,
      circuit: gate,
    });
  }

  /** The configured data endpoint. */
  get endpoint(): RespireEndpoint {
    return this.options.endpoint;
  }

  /**
   * The endpoint's circuit, read-only (state, counts, transitions), shared by every connection and
   * view of this client; undefined without `circuitBreaker`.
   */
  get circuit(): ClientCircuit | undefined {
    return this.gate?.circuit;
  }

  /**
   * A view that prefixes every key argument (found from the command table's key specs) and shares
   * this client's connections and its circuit. Replies are not rewritten.
   */
  withKeyPrefix(prefix: string | Buffer): KeyPrefixView {
    return new KeyPrefixView(this, checkedPrefix(prefix));
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    if (this.options.retryAttempts <= 1) {
      return this.callOnce(args, transform, options, flags, this.errorSink);
    }
    // With retries only the last attempt's error reaches the caller, so only it is counted.
    const promise = this.callWithRetry(args, transform, options, flags);
    const errorSink = errorSinkFor(this.errorSink, flags);
    if (errorSink !== undefined) promise.catch(errorSink);
    return promise;
  }

  /**
   * SUBSCRIBE: `listener` hears every message on these channels. Runs on a dedicated subscriber
   * connection, restored after a reconnect; resolves once the server confirmed. A listener that
   * throws does not keep the message from the others; its error goes to `onPubSubError` listeners
   * (rethrown from a microtask when there are none).
   */
  subscribe(channels: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.counted(this.subscriber.subscribe('channel', channels, listener));
  }

  /** PSUBSCRIBE: as `subscribe`, for glob patterns; listeners also get the matching pattern. */
  psubscribe(patterns: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.counted(this.subscriber.subscribe('pattern', patterns, listener));
  }

  /** SSUBSCRIBE: as `subscribe`, for shard channels (SPUBLISH). */
  ssubscribe(shardChannels: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.counted(this.subscriber.subscribe('shard', shardChannels, listener));
  }

  /**
   * Takes `listener` (every listener when omitted) off these channels (every channel when omitted).
   * A channel left without listeners is unsubscribed; resolves once the server confirmed.
   */
  unsubscribe(channels?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.counted(this.subscriber.unsubscribe('channel', channels, listener));
  }

  /** As `unsubscribe`, for patterns. */
  punsubscribe(patterns?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.counted(this.subscriber.unsubscribe('pattern', patterns, listener));
  }

  /** As `unsubscribe`, for shard channels. */
  sunsubscribe(shardChannels?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.counted(this.subscriber.unsubscribe('shard', shardChannels, listener));
  }

  /**
   * Hears what goes wrong with pub/sub away from any caller: a throwing message listener, a
   * subscription the server refused to restore after a reconnect, every subscription lost when the
   * reconnect policy gave up (pubsub-errors.ts). Returns the function that removes the listener.
   */
  onPubSubError(listener: PubSubErrorListener): () => void {
    return this.subscriber.onError(listener);
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
      clock: this.options.clock,
      watched: false,
      tracker: this.transactions,
      onError: this.errorSink,
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
    ]).then(() => this.gate?.dispose());
    return this.closing;
  }

  /** Closes every connection at once; what is queued or in flight rejects. */
  destroy(): void {
    this.main.destroy();
    this.dedicated.destroy();
    this.sessions.destroyAll();
    this.subscriber.destroy();
    this.gate?.dispose();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private callOnce<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
    errorSink?: (error: unknown) => void,
  ): Promise<T> {
    const command = prepareCommand(args, transform, options, flags, this.options.commandTimeout, errorSink);
    if (!command.settled) this.route(command as Command<unknown>);
    return command.promise;
  }

  /**
   * Blocking commands get a dedicated connection; the rest share the pipeline. Every command and
   * batch entry sent passes here, so here the `respire:command:*` channels see it (diagnostics.ts),
   * and here commands that would change the connection's state are refused (refused-commands.ts).
   */
  private route(command: Command<unknown>): void {
    const refusal = refusedCommand(command.args);
    if (refusal !== undefined) {
      command.reject(refusal);
      return;
    }
    traceCommand(command, this.options.endpoint, this.options.clock);
    if ((command.flags & CommandFlags.Blocking) !== 0) this.runDedicated(command);
    else this.main.enqueue(command);
  }

  /**
   * Dedicated connections for blocking commands and WATCH sessions. With a circuit, one is not even
   * opened while the circuit rejects, and failing to open one is a selection failure
   * (circuit-gate.ts `borrow`).
   */
  private dedicatedLender(): SessionPool {
    const { gate, dedicated } = this;
    if (gate === undefined) return dedicated;
    return {
      acquire: () => gate.borrow(dedicated),
      release: (channel) => dedicated.release(channel),
      discard: (channel) => dedicated.discard(channel),
    };
  }

  /** A blocking command borrows a connection of its own for as long as it runs. */
  private runDedicated(command: Command<unknown>): void {
    this.lender.acquire().then(
      (channel) => {
        channel.enqueue(command);
        command.promise.then(
          // A fire-and-forget command settles when written: the server is still blocked on it.
          () =>
            (command.flags & CommandFlags.FireAndForget) !== 0
              ? this.dedicated.discard(channel)
              : this.dedicated.release(channel),
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
    // Each attempt is a new command, admitted on its own right before its write, and its outcome
    // recorded on its own (BREAKER.md 17); a circuit rejection ends the loop (mayRetry).
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce(args, transform, options, flags);
      } catch (error) {
        if (attempt >= this.options.retryAttempts || !mayRetry(error, args)) throw error;
        this.telemetry.commandRetry(this.options.endpoint);
      }
    }
  }

  /** `redis.client.errors` for what a caller of a (un)subscribe method receives, once per call. */
  private counted(promise: Promise<void>): Promise<void> {
    if (this.errorSink !== undefined) promise.catch(this.errorSink);
    return promise;
  }

  /** `redis.client.errors`: what a caller of `call` received. */
  private readonly reportError = (error: unknown): void => {
    this.telemetry.commandError(this.options.endpoint, error);
  };
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
