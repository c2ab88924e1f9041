// `redis.batch()` (API.md "Batches, transactions, views"): commands queued locally with no
// admission and nothing sent, then written together, in queue order and contiguously, by
// `execute()` or `tryExecute()`. A batch is not atomic: each entry succeeds or fails on its own.
import type { RespArgument } from '../../resp/encoder.js';
import type { Command, CommandOptions, ReplyTransform, SettleObserver } from '../../transport/command.js';
import { Commander } from '../commander.js';
import { prepareCommand } from '../prepare-command.js';

/** Where a batch sends its entries; the client implements it. */
export interface BatchDispatcher {
  /** Reply deadline of an entry whose options give none (`commandTimeout`), ms. */
  readonly commandTimeout: number;
  /** Told what each entry's caller receives (the client's `redis.client.errors`). */
  readonly errorSink: ((error: unknown) => void) | undefined;
  /**
   * Sends the records in order, synchronously: the pipelined ones go into the shared connection's
   * send queue back to back, so no other command of the client lands between them and they leave
   * in one write. Blocking commands (BLPOP, WAIT, …) still run on dedicated connections.
   * Already settled records are skipped.
   */
  dispatch(commands: readonly Command<unknown>[]): void;
}

/** One entry that failed: its position in queue order and what its promise rejected with. */
export interface BatchFailure {
  /** 0-based position of the entry in the batch. */
  readonly index: number;
  /** The entry's rejection: a RespireServerError, RespireConnectionError, signal.reason, … */
  readonly error: unknown;
}

type BatchState = 'queuing' | 'running' | 'done';

/**
 * A Commander whose typed helpers queue entries instead of sending them; each returns a promise
 * that settles when the batch has run. Entries keep their per-command options: a signal aborted
 * before `execute()` drops the entry (it fails, nothing is sent), `timeout` counts from the write.
 *
 * Circuit breaker (seed 000 "Batches and transactions"): queuing needs no admission; each entry is
 * admitted on its own right before it is written, so a batch may be partly sent. Rejected entries
 * fail like any other and are not retried; a batch never retries entries (the `retry` option
 * applies to single commands).
 *
 * Entry promises never cause unhandled rejections: a caller may await only `execute()`.
 */
export class Batch extends Commander implements SettleObserver {
  /** Entries are sent only by `execute()` (commands/caller.ts). */
  readonly queuesCommands = true;
  private readonly entries: Command<unknown>[] = [];
  /** Each entry's value, in queue order, as its promise resolved. */
  private readonly values: unknown[] = [];
  private readonly failures: BatchFailure[] = [];
  private state: BatchState = 'queuing';
  private unsettled = 0;
  private finished: ((failures: BatchFailure[]) => void) | undefined;

  constructor(private readonly dispatcher: BatchDispatcher) {
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
    if (this.state !== 'queuing') {
      return Promise.reject(new TypeError('the batch has already run; queue commands on a new batch'));
    }
    const index = this.entries.length;
    this.unsettled++;
    // The record tells this batch when it settles (commandSettled), so a batch of N costs no
    // promise reactions of its own; a record rejected at once (bad options) tells it right here.
    const command = prepareCommand(
      args,
      transform,
      options,
      flags,
      this.dispatcher.commandTimeout,
      this.dispatcher.errorSink,
      this,
      index,
    );
    this.entries.push(command as Command<unknown>);
    return command.promise;
  }

  /**
   * Sends every entry (an empty batch sends nothing) and resolves, once all have settled, with
   * their values in queue order; rejects with the failure of the first failed entry in queue
   * order, if any. Rejects with a TypeError when the batch has already run.
   */
  async execute(): Promise<unknown[]> {
    const failures = await this.run();
    if (failures.length > 0) throw failures[0]!.error;
    return this.values;
  }

  /**
   * As `execute()`, but resolves with the failures instead of throwing: `[{ index, error }]` in
   * queue order, `[]` when every entry succeeded. Rejects only when the batch has already run
   * (TypeError).
   */
  tryExecute(): Promise<BatchFailure[]> {
    return this.run();
  }

  /** @internal SettleObserver: an entry's promise has just settled. */
  commandSettled(command: Command<unknown>, failed: boolean, outcome: unknown): void {
    if (failed) {
      // Marks the entry's promise handled, so an entry nobody awaits cannot surface as an
      // unhandled rejection; the caller's own handlers still see the rejection.
      command.promise.catch(ignore);
      this.failures.push({ index: command.position, error: outcome });
    } else {
      this.values[command.position] = outcome;
    }
    this.unsettled--;
    this.settleIfDone();
  }

  private run(): Promise<BatchFailure[]> {
    if (this.state !== 'queuing') {
      return Promise.reject(new TypeError('a batch runs once; this one has already been executed'));
    }
    this.state = 'running';
    const done = new Promise<BatchFailure[]>((resolve) => {
      this.finished = resolve;
    });
    this.dispatcher.dispatch(this.entries);
    this.settleIfDone();
    return done;
  }

  private settleIfDone(): void {
    if (this.unsettled !== 0 || this.state !== 'running') return;
    this.state = 'done';
    this.finished!(this.failures.sort(byIndex));
  }
}

function byIndex(a: BatchFailure, b: BatchFailure): number {
  return a.index - b.index;
}

function ignore(): void {
  // The entry's own caller, if any, handles the rejection.
}
