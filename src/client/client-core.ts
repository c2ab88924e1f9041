// The client every mode shares (issue 11 "First, the shape"): typed helpers, batches, transactions,
// WATCH sessions, views and pub/sub over a router that picks the node of each command
// (router.ts), the retry rule (only commands never written, or read-only ones; never a circuit
// rejection), and the client's telemetry. `RespireClient` (src/respire-client.ts) is this class
// with the `connect()` that chooses the router for the options' mode.
import {
  RespireAuthenticationError,
  RespireCircuitOpenError,
  RespireConnectionError,
  type RespireEndpoint,
  RespireServerError,
  RespireTimeoutError,
} from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import {
  type Command,
  CommandFlags,
  type CommandOptions,
  type ReplyTransform,
} from '../transport/command.js';
import { CacheFront } from './cache/cache-front.js';
import type { ClientSideCacheStats } from './cache/client-side-cache.js';
import { UncachedView } from './cache/uncached-view.js';
import { Commander } from './commander.js';
import type { RedisArgument } from './commands/caller.js';
import { DurableBatch, type DurableOptions } from './durable/durable-batch.js';
import type { EntrySource } from './imports/field-chunks.js';
import { HashImport, type ImportHashOptions, type ImportSettings } from './imports/hash-import.js';
import { checkedPrefix, KeyPrefixView } from './key-prefix-view.js';
import { ClientTelemetry } from './metrics.js';
import { type ClientCircuit, circuitRegistry } from './node/circuit-gate.js';
import type { DataRedirect } from './node/data-redirect.js';
import { EndpointNode, type EndpointNodeSettings } from './node/endpoint-node.js';
import type { ResolvedOptions } from './options.js';
import { prepareCommand } from './prepare-command.js';
import { ClientPubSub } from './pubsub/client-pubsub.js';
import type { PubSubErrorListener, PubSubListener } from './pubsub/subscriber.js';
import { isReadOnlyCommand } from './read-only-commands.js';
import { refusedCommand } from './refused-commands.js';
import type { Router } from './router.js';
import { errorSinkFor } from './scripting.js';
import type { StreamSettings } from './streams/raw-exchange.js';
import { type SetFromStreamOptions, uploadValue, type ValueSource } from './streams/upload.js';
import { type GetStreamOptions, ValueStream } from './streams/value-stream.js';
import { Batch, type BatchDispatcher } from './transactions/batch.js';
import { watchAskError } from './transactions/cluster-errors.js';
import { Transaction } from './transactions/multi.js';
import type { TransactionPlace, TransactionPlacer } from './transactions/transaction-run.js';
import type { WatchSession } from './transactions/watch-session.js';

/** What a router may set on a node it makes (EndpointNodeSettings). */
export type NodeExtras = Pick<
  EndpointNodeSettings,
  | 'setupCommands'
  | 'onShardChannelDropped'
  | 'onReconnecting'
  | 'holdBlockingWhileDown'
  | 'onSlotsMigrated'
  | 'onSessionError'
  | 'onClosed'
>;

/** Makes the nodes a router needs, sharing the client's telemetry and circuit registry. */
export interface NodeFactory {
  create(endpoint: RespireEndpoint, extras?: NodeExtras): EndpointNode;
  /** With `clientSideCache`: every node made has a tracking connection (cache/tracker.ts). */
  readonly caching?: boolean | undefined;
  /** Where a transaction of these entries goes now (a Cluster map moved its node's slot). */
  readonly placeTransaction?: TransactionPlacer | undefined;
}

export class ClientCore extends Commander {
  protected readonly router: Router;
  private closing: Promise<void> | undefined;
  /** How batches send their entries: contiguously, in one go (batch.ts). */
  private readonly batchDispatcher: BatchDispatcher;
  private readonly importSettings: ImportSettings;
  private readonly streamSettings: StreamSettings;
  private readonly telemetry: ClientTelemetry;
  /** `redis.client.errors`: told what a caller received; none without that metric. */
  private readonly errorSink: ((error: unknown) => void) | undefined;
  /** Subscribes through the router, and hands `onPubSubError` listeners to every node. */
  private readonly pubsub: ClientPubSub;
  /** The client-side cache (cache/cache-front.ts); none without `clientSideCache`. */
  private readonly ownCache: CacheFront | undefined;

  protected constructor(
    private readonly options: ResolvedOptions,
    makeRouter: (nodes: NodeFactory) => Router,
  ) {
    super();
    this.telemetry = options.meter === null ? ClientTelemetry.disabled : new ClientTelemetry(options);
    this.errorSink = this.telemetry.errorMetrics ? this.reportError : undefined;
    const circuits =
      options.circuitBreaker === null
        ? undefined
        : circuitRegistry({ ...options, circuitBreaker: options.circuitBreaker });
    this.ownCache =
      options.clientSideCache === null
        ? undefined
        : new CacheFront(options.clientSideCache, options.clock, this.telemetry, () => this.router.endpoint);
    this.pubsub = new ClientPubSub(
      () => this.router,
      this.errorSink,
      () => this.closing !== undefined,
    );
    this.router = makeRouter({
      caching: this.ownCache !== undefined,
      placeTransaction: (entries) => this.placeTransaction(entries),
      create: (endpoint, extras) => {
        const node: EndpointNode = new EndpointNode({
          ...extras,
          onClosed: () => {
            this.pubsub.forget(node);
            extras?.onClosed?.();
          },
          options: { ...options, endpoint },
          telemetry: this.telemetry,
          errorSink: this.errorSink,
          circuits,
          cache: this.ownCache?.cache,
        });
        this.pubsub.adopt(node);
        return node;
      },
    });
    // Cluster: where a MOVED or ASK sends the data methods (node/data-redirect.ts).
    const redirect: DataRedirect | undefined = this.router.transactionRedirect?.bind(this.router);
    this.streamSettings = { commandTimeout: options.commandTimeout, clock: options.clock, redirect };
    this.importSettings = {
      ...options,
      redirect,
      deleteKey: (key) => this.call(['DEL', key], undefined, undefined).catch(ignore),
      wroteKey: this.wroteKey,
    };
    this.batchDispatcher = {
      commandTimeout: options.commandTimeout,
      errorSink: this.errorSink,
      dispatch: (commands) => {
        for (const command of commands) if (!command.settled) this.route(command);
      },
    };
  }

  /** The cache reads are answered from: the client's own (a failover group's: its active member's). */
  protected get cache(): CacheFront | undefined {
    return this.ownCache;
  }

  /** What the client-side cache holds and has done; undefined without `clientSideCache`. */
  get cacheStats(): ClientSideCacheStats | undefined {
    return this.cache?.cache.stats;
  }

  /** A view reading through the client-side cache (its writes still invalidate it), sharing the rest. */
  withoutCache(): UncachedView {
    return new UncachedView(this, this);
  }

  /** The data endpoint: the configured one, or in Cluster mode the first seed. */
  get endpoint(): RespireEndpoint {
    return this.router.endpoint;
  }

  /**
   * The endpoint's circuit, read-only (state, counts, transitions), shared by every connection and
   * view of this client; undefined without `circuitBreaker`. In Cluster mode each node has its own:
   * see `circuitOf`.
   */
  get circuit(): ClientCircuit | undefined {
    return this.router.circuitOf(this.router.endpoint);
  }

  /** The circuit of a node the client has (a Cluster node, a Sentinel primary or replica). */
  circuitOf(endpoint: RespireEndpoint): ClientCircuit | undefined {
    return this.router.circuitOf(endpoint);
  }

  /**
   * A view that prefixes every key argument (found from the command table's key specs) and shares
   * this client's connections and its circuit. Replies are not rewritten.
   */
  withKeyPrefix(prefix: string | Buffer): KeyPrefixView {
    return new KeyPrefixView(this, this, checkedPrefix(prefix));
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    // The client-side cache answers a hit itself; `cached` sends a miss with its placeholder.
    const answer = this.cache?.answer(args, transform, options, flags, this.errorSink) ?? false;
    if (typeof answer === 'object') return answer;
    const cached = answer;
    if (this.options.retryAttempts <= 1) {
      return this.callOnce(args, transform, options, flags, this.errorSink, cached);
    }
    // With retries only the last attempt's error reaches the caller, so only it is counted.
    const promise = this.callWithRetry(args, transform, options, flags, cached);
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
    return this.pubsub.subscribe('channel', channels, listener);
  }

  /** PSUBSCRIBE: as `subscribe`, for glob patterns; listeners also get the matching pattern. */
  psubscribe(patterns: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.pubsub.subscribe('pattern', patterns, listener);
  }

  /** SSUBSCRIBE: as `subscribe`, for shard channels (SPUBLISH). */
  ssubscribe(shardChannels: string | readonly string[], listener: PubSubListener): Promise<void> {
    return this.pubsub.subscribe('shard', shardChannels, listener);
  }

  /**
   * Takes `listener` (every listener when omitted) off these channels (every channel when omitted).
   * A channel left without listeners is unsubscribed; resolves once the server confirmed.
   */
  unsubscribe(channels?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.pubsub.unsubscribe('channel', channels, listener);
  }

  /** As `unsubscribe`, for patterns. */
  punsubscribe(patterns?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.pubsub.unsubscribe('pattern', patterns, listener);
  }

  /** As `unsubscribe`, for shard channels. */
  sunsubscribe(shardChannels?: string | readonly string[], listener?: PubSubListener): Promise<void> {
    return this.pubsub.unsubscribe('shard', shardChannels, listener);
  }

  /**
   * Hears what goes wrong with pub/sub away from any caller: a throwing message listener, a
   * subscription the server refused to restore after a reconnect, every subscription lost when the
   * reconnect policy gave up (pubsub-errors.ts). Returns the function that removes the listener.
   */
  onPubSubError(listener: PubSubErrorListener): () => void {
    return this.pubsub.onError(listener);
  }

  /** A batch: queued locally, written in one go by `execute()` (batch.ts). */
  batch(): Batch {
    return new Batch(this.batchDispatcher);
  }

  /**
   * A MULTI/EXEC transaction, sent in one write by `exec()` (multi.ts) on the shared connection of
   * the node its keys belong to.
   */
  multi(): Transaction {
    return new Transaction({
      route: (entries) => {
        if (this.cache !== undefined) for (const entry of entries) this.cache.cache.sending(entry);
        return this.placeTransaction(entries);
      },
      commandTimeout: this.options.commandTimeout,
      clock: this.options.clock,
      watched: false,
      onError: this.errorSink,
    });
  }

  /**
   * Borrows a dedicated connection and sends WATCH on it; resolves with the session once WATCH
   * succeeded. See watch-session.ts for when a session gives its connection back.
   */
  watch(keys: RedisArgument | readonly RedisArgument[]): Promise<WatchSession> {
    const list: RedisArgument[] = typeof keys === 'string' || Buffer.isBuffer(keys) ? [keys] : [...keys];
    const node = this.router.watchNode(list);
    if (node instanceof Error) {
      this.errorSink?.(node);
      return Promise.reject(node);
    }
    return this.watchOn(node, list, 0);
  }

  /** GET whose value arrives as a stream of Buffers on a dedicated connection (README "Streamed values"). */
  getStream(key: RedisArgument, options?: GetStreamOptions): ValueStream {
    return new ValueStream(this.router.watchNode([key]), key, this.streamSettings, options);
  }

  /**
   * SET of `options.length` bytes written from `source` as they come, on a dedicated connection.
   * True once stored; false when `condition` kept Redis from storing it.
   */
  setFromStream(key: RedisArgument, source: ValueSource, options: SetFromStreamOptions): Promise<boolean> {
    // Read your writes: the upload goes around `route`, so it drops the key's entry itself, before
    // and again before its promise settles (the server's invalidation comes on another socket).
    this.wroteKey(key);
    let done = uploadValue(this.router.watchNode([key]), key, source, this.streamSettings, options);
    if (this.cache !== undefined) done = done.finally(() => this.wroteKey(key));
    if (this.errorSink !== undefined) done.catch(this.errorSink);
    return done;
  }

  /** Imports `entries` into hash `key` in HSET transactions; `run()` starts or resumes it (README "Hash imports"). */
  importHash(key: RedisArgument, entries: EntrySource, options: ImportHashOptions): HashImport {
    return this.importHashIn(undefined, key, entries, options);
  }

  /** @internal `importHash` of a key-prefixed view (client-view.ts): its temporary key gets `prefix`. */
  importHashIn(
    prefix: string | Buffer | undefined,
    key: RedisArgument,
    entries: EntrySource,
    options: ImportHashOptions,
  ): HashImport {
    const locate = () => this.router.watchNode([key]);
    return new HashImport(locate, key, entries, this.importSettings, options, prefix);
  }

  /** Writes, then WAIT (or WAITAOF) on the same dedicated connection, reported per write (README "Durability batches"). */
  durable(options: DurableOptions): DurableBatch {
    return this.durableIn(undefined, options);
  }

  /** @internal `durable` of a key-prefixed view (client-view.ts): its writes' keys get `prefix`. */
  durableIn(prefix: string | Buffer | undefined, options: DurableOptions): DurableBatch {
    return new DurableBatch(options, {
      prefix,
      redirect: this.streamSettings.redirect,
      commandTimeout: this.options.commandTimeout,
      place: (writes) => this.router.transactionNode(writes, 'durable batch'),
      sending: (write) => this.cache?.cache.sending(write),
      errorSink: this.errorSink,
    });
  }

  /**
   * Waits for every reply in flight, then closes all connections. Commands issued after this
   * reject with RespireConnectionError (`written: false`).
   */
  close(): Promise<void> {
    this.ownCache?.stop();
    this.closing ??= this.router.close();
    return this.closing;
  }

  /** Closes every connection at once; what is queued or in flight rejects. */
  destroy(): void {
    this.ownCache?.stop();
    this.router.destroy();
  }

  /** `await using redis = …`: calls `close()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Opens what `connect()` waits for (the router's first connections); on failure, closes all. */
  protected async start(): Promise<void> {
    try {
      await this.router.start();
    } catch (error) {
      this.destroy();
      throw error;
    }
  }

  /**
   * WATCH on `node`; in Cluster mode a WATCH that meets MOVED (or TRYAGAIN) opens the session where
   * the router says, as a transaction would go (`transactionRedirect`). After ASK the session's
   * MULTI would need ASKING too: the caller gets the ASK, saying so (watchAskError).
   */
  private async watchOn(node: EndpointNode, keys: RedisArgument[], hops: number): Promise<WatchSession> {
    try {
      return await node.sessions.watch(keys);
    } catch (error) {
      const next =
        error instanceof RespireServerError
          ? this.router.transactionRedirect?.(error, hops + 1, node, false)
          : undefined;
      if (next?.asking) throw watchAskError(error as RespireServerError, keys.length);
      if (next === undefined) throw error;
      const pause = next.pause;
      if (pause !== undefined) await new Promise<void>((resolve, reject) => pause(resolve, { reject }));
      return this.watchOn(next.node, keys, hops + 1);
    }
  }

  /** @internal Where a transaction of `entries` goes now: multi(), and a failover switch moving one. */
  placeTransaction(entries: readonly Command<unknown>[]): TransactionPlace | Error {
    const node = this.router.transactionNode(entries);
    return node instanceof Error ? node : this.transactionPlace(node);
  }

  /** A node's pipeline for a transaction, and where it goes after a MOVED or ASK (Cluster). */
  private transactionPlace(node: EndpointNode): TransactionPlace {
    const router = this.router;
    if (router.transactionRedirect === undefined) {
      return { target: node.transactionTarget, tracker: node.transactions };
    }
    return {
      target: node.transactionTarget,
      tracker: node.transactions,
      redirect: (cause, hops, asking) => {
        const next = router.transactionRedirect!(cause, hops, node, asking);
        return next && { ...this.transactionPlace(next.node), asking: next.asking, pause: next.pause };
      },
    };
  }

  private callOnce<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
    errorSink: ((error: unknown) => void) | undefined,
    cached: boolean,
  ): Promise<T> {
    const timeout = this.options.commandTimeout;
    // A retry after a failover switch may find the new member without a cache: sent uncached.
    const cache = cached ? this.cache : undefined;
    const command =
      cache !== undefined
        ? cache.prepare(args, transform, options, flags, timeout, errorSink)
        : prepareCommand(args, transform, options, flags, timeout, errorSink);
    if (!command.settled) this.route(command as Command<unknown>);
    return command.promise;
  }

  /**
   * Every command and batch entry sent passes here: commands that would change the connection's
   * state are refused (refused-commands.ts), the rest go to the router.
   */
  private route(command: Command<unknown>): void {
    const refusal = refusedCommand(command.args);
    if (refusal !== undefined) {
      command.reject(refusal);
      return;
    }
    // Read your writes: what the command may write leaves the cache as it is sent and settles.
    this.cache?.cache.sending(command);
    this.router.send(command);
  }

  /**
   * Read your writes for what is written around `route` (streamed values, hash imports): `key`'s
   * cache entry goes, as for any write of that key (DEL's key rule).
   */
  private readonly wroteKey = (key: RespArgument): void => {
    this.cache?.cache.written(['DEL', key]);
  };

  private async callWithRetry<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
    cached: boolean,
  ): Promise<T> {
    // Each attempt is a new command, admitted on its own right before its write, and its outcome
    // recorded on its own (BREAKER.md 17); a circuit rejection ends the loop (mayRetry).
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce(
          args,
          transform,
          options,
          attempt === 1 ? flags : flags | CommandFlags.Retry,
          undefined,
          cached,
        );
      } catch (error) {
        if (attempt >= this.options.retryAttempts || !mayRetry(error, args)) throw error;
        this.telemetry.commandRetry(this.router.endpoint);
      }
    }
  }

  /** `redis.client.errors`: what a caller of `call` received. */
  private readonly reportError = (error: unknown): void => {
    this.telemetry.commandError(this.router.endpoint, error);
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

function ignore(): void {}
