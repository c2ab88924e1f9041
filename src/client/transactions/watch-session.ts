// `redis.watch(keys)` (API.md "Batches, transactions, views"): optimistic locking on a dedicated
// connection. WATCH is its own command; reads run on the same connection (the session is a
// Commander); `multi().exec()` resolves null when a watched key changed.
//
// Lifetime rule: a session holds one of the client's `maxDedicatedConnections` until it ends, and
// it ends when its transaction has run (`exec()` settled), on `unwatch()`, `release()` or
// `Symbol.asyncDispose`, or when the client closes (`close()` releases every open session,
// `destroy()` closes their connections). A session that is dropped without ending is not reclaimed
// by the garbage collector: it keeps its connection until the client closes, and once every
// dedicated connection is held, `watch()` and blocking commands wait `acquireTimeout` and fail.
// Prefer `await using session = await redis.watch(keys)`.
import { RespireCircuitOpenError } from '../../errors.js';
import type { RespArgument } from '../../resp/encoder.js';
import { type Channel, clientClosedError } from '../../transport/channel.js';
import { Command, type CommandOptions, type ReplyTransform } from '../../transport/command.js';
import type { Clock } from '../../util/clock.js';
import type { ClientSideCache } from '../cache/client-side-cache.js';
import { Commander } from '../commander.js';
import type { RedisArgument } from '../commands/caller.js';
import { traceCommand } from '../diagnostics.js';
import { prepareCommand } from '../prepare-command.js';
import { refusedCommand } from '../refused-commands.js';
import { Transaction } from './multi.js';

/** The dedicated connections sessions borrow (DedicatedPool). */
export interface SessionPool {
  acquire(): Promise<Channel>;
  /** Takes back a connection in a known state (no WATCH, no MULTI). */
  release(channel: Channel): void;
  /** Closes a connection that broke or whose state is unknown. */
  discard(channel: Channel): void;
}

/** What sessions share with the client's other commands. */
export interface SessionSettings {
  /** Default reply deadline (`commandTimeout`), ms. */
  readonly commandTimeout: number;
  /** Times the `respire:command:*` messages (diagnostics.ts). */
  readonly clock: Clock;
  /**
   * `redis.client.errors`: told each error a session's caller receives, once: from `watch()`, a
   * session command, `exec()` of its transaction, `unwatch()` (issue 10 #8).
   */
  readonly errorSink: ((error: unknown) => void) | undefined;
  /** The client-side cache: a session's writes leave it as the client's do (read your writes). */
  readonly cache?: Pick<ClientSideCache, 'sending'> | undefined;
}

/** Opens WATCH sessions and ends the ones still open when the client closes. */
export class WatchSessions {
  private readonly open = new Set<WatchSession>();
  /** The client is closing: a connection acquired from now on is given back at once. */
  private closed = false;

  constructor(
    private readonly pool: SessionPool,
    private readonly settings: SessionSettings,
  ) {}

  /** Borrows a connection and WATCHes `keys` on it; on failure the connection is given back. */
  watch(keys: RedisArgument | readonly RedisArgument[]): Promise<WatchSession> {
    const opened = this.start(keys);
    if (this.settings.errorSink !== undefined) opened.catch(this.settings.errorSink);
    return opened;
  }

  private async start(keys: RedisArgument | readonly RedisArgument[]): Promise<WatchSession> {
    const list: RedisArgument[] = typeof keys === 'string' || Buffer.isBuffer(keys) ? [keys] : [...keys];
    if (list.length === 0) throw new TypeError('watch() needs at least one key');
    const channel = await this.pool.acquire();
    if (this.closed) {
      this.pool.discard(channel);
      throw clientClosedError(channel.endpoint);
    }
    const session = new WatchSession(channel, this.pool, this.settings, this.open);
    this.open.add(session);
    try {
      // Its error is counted as watch()'s, so not by the command as well.
      await session.sendUncounted(['WATCH', ...list]);
    } catch (error) {
      // Refused by the circuit, WATCH was never sent: the connection goes back as it is.
      if (error instanceof RespireCircuitOpenError) session.giveBack();
      else await session.release();
      throw error;
    }
    return session;
  }

  /**
   * Ends every open session as `release()` does. `cause`: what their later commands fail with
   * instead of "the session has ended" (their owner did not end them: a Sentinel switch did).
   */
  releaseAll(cause?: Error): Promise<void> {
    this.closed = true;
    return Promise.all([...this.open].map((session) => session.endBy(cause))).then(ignore);
  }

  /** Closes the connection of every open session at once; what is in flight there fails. */
  destroyAll(): void {
    this.closed = true;
    for (const session of [...this.open]) session.destroy();
  }

  /**
   * Ends every open session at once, as `destroyAll` does, but keeps taking new ones: a failover
   * group switched away from this endpoint (src/failover). Later commands of those sessions
   * reject with `reason`.
   */
  endAll(reason: Error): void {
    for (const session of [...this.open]) session.destroy(reason);
  }
}

/**
 * `await redis.watch(keys)`: a dedicated connection holding WATCH on `keys`, until its transaction
 * runs (`multi().exec()`, null when a watched key changed), `unwatch()` or `release()`.
 */
export class WatchSession extends Commander implements AsyncDisposable {
  /** Settles once the connection is back in the pool (or closed). */
  private ending: Promise<void> | undefined;
  /** `exec()` of the session's transaction was called: no further commands. */
  private committing = false;
  /**
   * Why the session was ended other than by its owner (a Sentinel switch through releaseAll's
   * `cause`, a failover group through endAll's `reason`); its later commands reject with it.
   */
  private endReason: Error | undefined;

  /** @internal Use `redis.watch(keys)`. */
  constructor(
    private readonly channel: Channel,
    private readonly pool: SessionPool,
    private readonly settings: SessionSettings,
    private readonly registry: Set<WatchSession>,
  ) {
    super();
  }

  /** Whether the session still holds its connection and takes commands. */
  get active(): boolean {
    return this.ending === undefined && !this.committing;
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    return this.enqueue(args, transform, options, flags, this.settings.errorSink);
  }

  /** @internal WATCH from `redis.watch()`, which counts the error itself. */
  sendUncounted(args: RespArgument[]): Promise<unknown> {
    return this.enqueue(args, undefined, undefined, 0, undefined);
  }

  /** As the client's path: the command is traced (diagnostics.ts) when it is sent. */
  private enqueue<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
    errorSink: ((error: unknown) => void) | undefined,
  ): Promise<T> {
    // The connection goes back to the pool afterwards: nothing may change its state (refused-commands.ts).
    const refusal = this.active ? refusedCommand(args, true) : (this.endReason ?? endedError());
    if (refusal !== undefined) {
      // What the caller receives, so counted like any other error of a session command.
      errorSink?.(refusal);
      return Promise.reject(refusal);
    }
    const { commandTimeout, clock } = this.settings;
    const command = prepareCommand(args, transform, options, flags, commandTimeout, errorSink);
    if (!command.settled) {
      traceCommand(command as Command<unknown>, this.channel.endpoint, clock);
      this.settings.cache?.sending(command as Command<unknown>);
      this.channel.enqueue(command as Command<unknown>);
    }
    return command.promise;
  }

  /**
   * A transaction on the session's connection. Its `exec()` resolves with the results, or `null`
   * when a watched key changed; either way the session then ends. Only one transaction of a
   * session can run; throws a TypeError when the session has ended.
   */
  multi(): Transaction<null> {
    if (!this.active) throw this.endReason ?? endedError();
    const { cache } = this.settings;
    return new Transaction<null>({
      target: this.channel,
      // Only to tell the cache what the transaction may write; it runs on the session's connection.
      route:
        cache &&
        ((entries) => {
          for (const entry of entries) cache.sending(entry);
          return { target: this.channel };
        }),
      commandTimeout: this.settings.commandTimeout,
      clock: this.settings.clock,
      watched: true,
      onError: this.settings.errorSink,
      begin: () => {
        if (!this.active) return this.endReason ?? endedError();
        this.committing = true;
        return undefined;
      },
      onEnd: (end) => {
        // A commit the circuit refused may send nothing, not even UNWATCH: closing the connection
        // drops the WATCH and releases it (seed 000 "Batches and transactions").
        if (end.circuitRejected === true) this.destroy();
        else this.end(!end.watchCleared).catch(ignore);
      },
    });
  }

  /** Sends UNWATCH and ends the session; rejects when UNWATCH failed (the connection is closed). */
  unwatch(): Promise<void> {
    const ended = this.end(true);
    if (this.settings.errorSink !== undefined) ended.catch(this.settings.errorSink);
    return ended;
  }

  /**
   * Ends the session: UNWATCH unless the transaction already cleared the WATCH, then the connection
   * goes back to the pool (a broken one is closed). Never rejects; calling it again is harmless.
   */
  release(): Promise<void> {
    return this.end(true).catch(ignore);
  }

  /** `await using session = …`: calls `release()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  /** @internal `release()` on the client's behalf; later commands fail with `cause` (if given). */
  endBy(cause: Error | undefined): Promise<void> {
    if (this.ending === undefined) this.endReason = cause;
    return this.release();
  }

  /** @internal Ends a session whose WATCH was never sent: no UNWATCH is needed. */
  giveBack(): void {
    this.end(false).catch(ignore);
  }

  /** @internal Closes the connection at once (client `destroy()`, or `endAll(reason)`). */
  destroy(reason?: Error): void {
    if (this.ending !== undefined) return;
    this.endReason = reason;
    this.registry.delete(this);
    this.ending = Promise.resolve();
    this.pool.discard(this.channel);
  }

  private end(unwatch: boolean): Promise<void> {
    if (this.ending !== undefined) return this.ending;
    this.registry.delete(this);
    const channel = this.channel;
    if (channel.current === undefined) {
      this.pool.discard(channel);
      this.ending = Promise.resolve();
    } else if (!unwatch) {
      this.pool.release(channel);
      this.ending = Promise.resolve();
    } else {
      const command = new Command(['UNWATCH'], 0, undefined, undefined, this.settings.commandTimeout);
      channel.enqueue(command as Command<unknown>);
      this.ending = command.promise.then(
        () => this.pool.release(channel),
        (error: unknown) => {
          this.pool.discard(channel);
          throw error;
        },
      );
    }
    return this.ending;
  }
}

function endedError(): TypeError {
  return new TypeError('the WATCH session has ended; start a new one with redis.watch(keys)');
}

function ignore(): void {}
