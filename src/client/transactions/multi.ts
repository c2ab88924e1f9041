// `redis.multi()` and `session.multi()` (API.md "Batches, transactions, views"): commands queued
// locally, then sent as MULTI, the commands, EXEC in one write on one connection by `exec()`.
import type { RespArgument } from '../../resp/encoder.js';
import {
  Command,
  type CommandOptions,
  type ReplyTransform,
  type SettleObserver,
} from '../../transport/command.js';
import type { Clock } from '../../util/clock.js';
import { Commander } from '../commander.js';
import { commandsTraced, traceCommand, traceOperation } from '../diagnostics.js';
import { invalidTimeout, isTimeout } from '../prepare-command.js';
import { refusedCommand } from '../refused-commands.js';
import {
  type TransactionEnd,
  type TransactionPlace,
  TransactionRun,
  type TransactionTarget,
  type TransactionTracker,
} from './transaction-run.js';

/** Options of `exec()`: the transaction is one unit, so its deadline and signal cover all of it. */
export interface TransactionOptions {
  /** Before MULTI is written nothing is sent; after, the replies are read and dropped. */
  signal?: AbortSignal | undefined;
  /** Reply deadline of each of MULTI, the commands and EXEC, ms from its write; 0 = none. */
  timeout?: number | undefined;
}

/** What a transaction needs from its owner (the client, or a WATCH session). */
export interface TransactionContext {
  /** A fixed place (a WATCH session's connection); or `route` decides at `exec()`. */
  readonly target?: TransactionTarget | undefined;
  /**
   * Where a client's transaction runs, from its entries (a Cluster node by their slot), or the
   * error that fails it with nothing sent (CROSSSLOT).
   */
  readonly route?: ((entries: readonly Command<unknown>[]) => TransactionPlace | Error) | undefined;
  /** Default reply deadline (`commandTimeout`), ms. */
  readonly commandTimeout: number;
  /** Times the `respire:command:*` messages of the entries and EXEC (diagnostics.ts). */
  readonly clock: Clock;
  /** A WATCH session's transaction: `exec()` resolves null when a watched key changed. */
  readonly watched: boolean;
  readonly tracker?: TransactionTracker | undefined;
  /** Asked when `exec()` is called; an error returned rejects it with nothing sent. */
  readonly begin?: (() => Error | undefined) | undefined;
  /** Called once when the transaction has ended, or at once for one that sent nothing. */
  readonly onEnd?: ((end: TransactionEnd) => void) | undefined;
  /** Told what `exec()` rejected with (the client's `redis.client.errors`). */
  readonly onError?: ((error: unknown) => void) | undefined;
  /** ASKING right before MULTI (a hash import that followed an ASK: imports/hash-import.ts). */
  readonly asking?: boolean | undefined;
}

/**
 * A Commander whose typed helpers queue entries of a MULTI/EXEC transaction; each returns a promise
 * that settles from EXEC's results with the helper's own reply conversion.
 *
 * - `exec()` resolves with every entry's result in order; an entry that failed inside EXEC (say
 *   WRONGTYPE) is a RespireServerError value in the array, and its own promise rejects with it. A
 *   reply conversion that throws puts its error in the array the same way.
 * - EXECABORT (an error at queue time, such as a wrong number of arguments) rejects `exec()` with a
 *   RespireServerError (code EXECABORT) whose `cause` is the first queue-time error; each entry's
 *   promise rejects with its own queue-time error, the others with the EXECABORT error.
 * - Entries take no `timeout` or `fireAndForget` of their own (pass a timeout to `exec()`); an
 *   entry whose `signal` aborts before `exec()` is left out of the transaction.
 * - An entry `send` refuses (README "Commands `send` refuses") rejects when queued, and `exec()`
 *   then rejects with that refusal and sends nothing, as Redis discards a transaction with a
 *   queue-time error.
 * - An empty transaction sends nothing and resolves `[]`. Blocking commands do not block inside
 *   MULTI, so a transaction never needs a dedicated connection.
 * - Circuit breaker (seed 000): queuing needs no admission; a nonempty transaction is one unit.
 *
 * Entry promises never cause unhandled rejections: a caller may await only `exec()`.
 * `Conflict` is `null` in a WATCH session, where `exec()` resolves null when a watched key changed.
 */
export class Transaction<Conflict extends null = never> extends Commander {
  /** Entries are sent and answered only at `exec()` (commands/caller.ts). */
  readonly queuesCommands = true;
  private readonly entries: Command<unknown>[] = [];
  private started = false;
  /** The first entry `send` refuses (refused-commands.ts): `exec()` then sends nothing. */
  private refusal: Error | undefined;

  constructor(private readonly context: TransactionContext) {
    super();
  }

  /** Entries queued so far. */
  get length(): number {
    return this.entries.length;
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    if (this.started) {
      return Promise.reject(new TypeError('the transaction has already run; queue commands on a new one'));
    }
    const signal = options?.signal;
    // Never written itself (TransactionRun writes a step for it): no deadline of its own.
    const entry = new Command<T>(args, flags, transform, signal, 0);
    entry.observer = handledOnFailure;
    // SELECT, CLIENT SETNAME, SUBSCRIBE … would outlive EXEC on the connection (refused-commands.ts).
    // Like a queue-time error in Redis (EXECABORT), it discards the whole transaction: the rest
    // must not run without it (the SET after a refused SELECT would write the wrong database).
    const refusal = refusedCommand(args);
    if (refusal !== undefined) {
      this.refusal ??= refusal;
      entry.reject(refusal);
    } else if (signal?.aborted) entry.reject(signal.reason);
    this.entries.push(entry as Command<unknown>);
    return entry.promise;
  }

  /**
   * Sends MULTI, the entries and EXEC together and resolves with the results in order (see the
   * class notes for errors). Rejects with a TypeError when the transaction has already run.
   */
  exec(options?: TransactionOptions): Promise<unknown[] | Conflict> {
    const result = this.run(options);
    if (this.context.onError !== undefined) result.catch(this.context.onError);
    return result;
  }

  private run(options: TransactionOptions | undefined): Promise<unknown[] | Conflict> {
    if (this.started) {
      return Promise.reject(new TypeError('a transaction runs once; this one has already been executed'));
    }
    this.started = true;
    const context = this.context;
    const refusal = context.begin?.();
    if (refusal !== undefined) return this.refuse(refusal, false);
    if (this.refusal !== undefined) return this.refuse(this.refusal, true);
    let timeoutMs = context.commandTimeout;
    if (options?.timeout !== undefined) {
      if (!isTimeout(options.timeout)) return this.refuse(invalidTimeout(options.timeout), true);
      timeoutMs = options.timeout;
    }
    const live = this.entries.filter((entry) => !entry.settled);
    if (live.length === 0) {
      context.onEnd?.({ watchCleared: false });
      return Promise.resolve([]);
    }
    const place: TransactionPlace | Error = context.route?.(live) ?? {
      target: context.target!,
      tracker: context.tracker,
    };
    if (place instanceof Error) return this.refuse(place, true);
    const run = new TransactionRun(live, {
      target: place.target,
      timeoutMs,
      signal: options?.signal,
      watched: context.watched,
      tracker: place.tracker,
      redirect: place.redirect,
      asking: context.asking,
      onEnd: context.onEnd,
      clock: context.clock,
    });
    if (commandsTraced()) this.trace(live, run.promise, place.target);
    run.start();
    return run.promise as Promise<unknown[] | Conflict>;
  }

  /**
   * diagnostics.ts: each entry as it is sent, settling as its own promise does, then `EXEC` for
   * the whole transaction, as exec() settles.
   */
  private trace(live: readonly Command<unknown>[], whole: Promise<unknown>, target: TransactionTarget): void {
    const { clock } = this.context;
    for (const entry of live) traceCommand(entry, target.endpoint, clock);
    traceOperation('EXEC', whole, target.endpoint, clock);
  }

  /** Fails `exec()` and every entry with nothing sent. */
  private refuse(error: Error, ended: boolean): Promise<never> {
    for (const entry of this.entries) entry.reject(error);
    if (ended) this.context.onEnd?.({ watchCleared: false });
    return Promise.reject(error);
  }
}

/**
 * Marks a failed entry's promise handled, so an entry nobody awaits cannot surface as an unhandled
 * rejection; told only on settling, so a successful entry costs no promise reaction.
 */
const handledOnFailure: SettleObserver = {
  commandSettled(command, failed) {
    if (failed) command.promise.catch(ignore);
  },
};

function ignore(): void {}
