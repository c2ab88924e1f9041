// The wire side of one MULTI…EXEC: MULTI, the entries and EXEC go into one connection's send queue
// back to back, so they leave contiguously (in one write); every QUEUED reply is consumed by its own
// step, and EXEC's array settles the entries. A transaction is never split across connections:
// once MULTI has been written, steps not yet written are dropped when anything goes wrong, and an
// open MULTI left on a live connection is closed with DISCARD.
import {
  RespireCircuitOpenError,
  RespireConnectionError,
  type RespireEndpoint,
  RespireError,
  RespireServerError,
} from '../../errors.js';
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import { Command, CommandFlags, CommandState } from '../../transport/command.js';
import { Health, healthOf } from '../../transport/health.js';
import { type AbortTarget, unwatchSignal, watchSignal } from '../../transport/signal-watch.js';
import type { Clock } from '../../util/clock.js';
import { discardedTransactionError } from './cluster-errors.js';

/** The connection (or reconnecting channel) a transaction is written to; a Channel fits. */
export interface TransactionTarget {
  readonly endpoint: RespireEndpoint;
  /** The live connection, if any: a DISCARD is written on it ahead of its send queue. */
  readonly current: { request(args: readonly (string | Buffer)[]): Promise<RespValue> } | undefined;
  enqueue(command: Command<unknown>): void;
}

export interface TransactionEnd {
  /**
   * EXEC was answered with results, `null` or EXECABORT: the server closed the transaction and
   * dropped every WATCH of the connection. Otherwise a WATCH may still be in effect.
   */
  readonly watchCleared: boolean;
  /**
   * The circuit refused the transaction, so nothing was sent, and nothing may be: a WATCH left on
   * the connection is dropped by closing it rather than by sending UNWATCH.
   */
  readonly circuitRejected?: boolean;
}

/** Where a transaction is written, and what tracks it across reconnects. */
export interface TransactionPlace {
  readonly target: TransactionTarget;
  readonly tracker?: TransactionTracker | undefined;
  /** Cluster: where the transaction goes when its EXEC is aborted by a MOVED or ASK (see below). */
  readonly redirect?: TransactionRedirect | undefined;
}

/**
 * A backoff before a redirected transaction or WATCH is sent again (Cluster TRYAGAIN): `go` runs
 * once it has passed, or `paused.reject` (nothing was sent) if the client closes first. The router
 * holds it, so that close() and destroy() end it with its other backoffs.
 */
export type RedirectPause = (go: () => void, paused: PausedRun) => void;

/** What waits out a RedirectPause. */
export interface PausedRun {
  reject(error: unknown): void;
  /** A transaction: a failover switch takes it from the pause to start where `placeFor` puts it. */
  readonly move?: ((placeFor: TransactionPlacer) => void) | undefined;
}

/**
 * Cluster (PROTOCOL.md §2.3): a MOVED or ASK at queue time aborts the EXEC, and a TRYAGAIN (keys
 * split by a migration) answers it; nothing ran. The whole MULTI…EXEC is then resent to the place
 * this returns for that error (`asking`: ASKING right before MULTI; `pause`: after a backoff),
 * `hops` counting this redirect; undefined lets the error reach the caller. `asking` says whether
 * the aborted run had ASKING.
 */
export type TransactionRedirect = (
  cause: RespireServerError,
  hops: number,
  asking: boolean,
) => (TransactionPlace & { readonly asking: boolean; readonly pause?: RedirectPause }) | undefined;

export interface TransactionRunOptions {
  readonly target: TransactionTarget;
  /** Reply deadline of every step, counted from its write; 0 = none. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  /** Inside a WATCH session a `null` EXEC is an answer (a watched key changed), not a failure. */
  readonly watched: boolean;
  /** Present for a reconnecting target: told when the target switches to a new connection. */
  readonly tracker: TransactionTracker | undefined;
  readonly onEnd: ((end: TransactionEnd) => void) | undefined;
  readonly redirect?: TransactionRedirect | undefined;
  /** Write ASKING right before MULTI (a transaction resent after ASK). */
  readonly asking?: boolean | undefined;
  /** Redirects followed before this run. */
  readonly hops?: number | undefined;
  /** The clock a redirect's backoff waits on (util/timers.ts). */
  readonly clock: Clock;
}

/**
 * Transactions in progress on a reconnecting channel. Registered as the channel's `onConnect`: a
 * transaction whose MULTI went out on the old connection must not write its rest on the new one.
 */
export class TransactionTracker {
  private readonly runs = new Set<TransactionRun>();

  add(run: TransactionRun): void {
    this.runs.add(run);
  }

  delete(run: TransactionRun): void {
    this.runs.delete(run);
  }

  readonly onConnect = (): void => {
    for (const run of this.runs) run.onNewConnection();
  };

  /** The node is replaced (a Sentinel switch): each run moves to `place` or ends (onNodeReplaced). */
  replaced(place: TransactionPlace): void {
    for (const run of [...this.runs]) run.onNodeReplaced(place);
  }

  /** A failover group switched members: each run nothing of which is written moves (moveWhole). */
  moveUnwritten(from: UnwrittenSource, placeFor: TransactionPlacer): void {
    for (const run of [...this.runs]) run.moveWhole(from, placeFor);
  }
}

/** The queue a run's steps wait in (a Channel): they are taken out of it to move. */
export interface UnwrittenSource {
  takeUnwritten(select: (command: Command<unknown>) => boolean): Command<unknown>[];
}

/** Where a transaction of these entries goes now, or why it cannot go anywhere. */
export type TransactionPlacer = (entries: readonly Command<unknown>[]) => TransactionPlace | Error;

/** One wire command of a transaction. Its promise is never observed; outcomes go to the run. */
class TransactionStep extends Command<RespValue> {
  constructor(
    args: readonly RespArgument[],
    timeoutMs: number,
    private readonly run: TransactionRun,
    position: number,
  ) {
    // Never Blocking: inside MULTI a BLPOP does not block (PROTOCOL.md §6). The circuit admits
    // MULTI for the whole transaction; the steps after it are not checked again (seed 000).
    super(
      args,
      position === 0 ? CommandFlags.None : CommandFlags.TransactionStep,
      undefined,
      undefined,
      timeoutMs,
    );
    this.position = position;
  }

  override reply(value: RespValue): void {
    if (this.settled) return;
    super.resolve(value);
    this.run.onStepReply(this, value);
  }

  override reject(error: unknown): void {
    if (this.settled) return;
    const written = this.state === CommandState.Written;
    super.resolve(null);
    this.run.onStepFailed(this, error, written);
  }
}

export class TransactionRun implements AbortTarget {
  readonly promise: Promise<RespValue[] | null>;
  private readonly steps: TransactionStep[] = [];
  /** Queue-time errors (wrong arity, unknown command…), by entry index. */
  private readonly queueErrors: (RespireServerError | undefined)[] = [];
  private multiError: RespireServerError | undefined;
  /** MULTI's position: 1 behind an ASKING, which then is the step the circuit admits. */
  private readonly multiAt: number;
  private ended = false;
  /** Set while this run fails its own steps, so their failures do not come back to it. */
  private dropping = false;
  private resolveRun!: (results: RespValue[] | null) => void;
  private rejectRun!: (error: unknown) => void;

  constructor(
    private readonly entries: readonly Command<unknown>[],
    private options: TransactionRunOptions,
  ) {
    this.multiAt = options.asking ? 1 : 0;
    this.promise = new Promise((resolve, reject) => {
      this.resolveRun = resolve;
      this.rejectRun = reject;
    });
  }

  /**
   * Enqueues MULTI, the entries and EXEC in one go. Circuit breaker (seed 000): a nonempty
   * transaction is admitted once, as MULTI, right before it is written; a rejection sends nothing
   * and fails every entry (the steps are still queued, so failing one drops them all). MULTI's
   * admission ends when EXEC's outcome is known: any EXEC reply (results, null after a WATCH
   * conflict, EXECABORT) is healthy, and the error that ends the run otherwise decides (health.ts).
   */
  start(): void {
    const { signal, target, timeoutMs } = this.options;
    if (signal?.aborted) {
      this.end(signal.reason, false);
      return;
    }
    if (this.options.asking) this.steps.push(new TransactionStep(['ASKING'], timeoutMs, this, 0));
    this.steps.push(new TransactionStep(['MULTI'], timeoutMs, this, this.steps.length));
    for (const entry of this.entries) {
      this.steps.push(new TransactionStep(entry.args, timeoutMs, this, this.steps.length));
    }
    this.steps.push(new TransactionStep(['EXEC'], timeoutMs, this, this.steps.length));
    this.options.tracker?.add(this);
    // One listener per signal however many transactions and commands share it (signal-watch.ts).
    if (signal !== undefined) watchSignal(signal, this);
    for (const step of this.steps) if (!step.settled) target.enqueue(step as Command<unknown>);
  }

  /**
   * A failover switch took this run from its redirect's pause (nothing of it written: seed 000
   * "Retries", a failover group's new active member admits it): it starts afresh where `placeFor`
   * puts it, or ends unsent when nowhere will take it.
   */
  startAt(placeFor: TransactionPlacer): void {
    const place = placeFor(this.entries);
    if (place instanceof Error) {
      this.end(place, false);
      return;
    }
    const { target, tracker, redirect } = place;
    this.options = { ...this.options, target, tracker, redirect, asking: false };
    this.start();
  }

  onStepReply(step: TransactionStep, value: RespValue): void {
    const last = this.steps.length - 1;
    if (step.position < this.multiAt) {
      // ASKING: its reply says nothing about the transaction.
    } else if (step.position === this.multiAt) {
      if (value instanceof RespireServerError) this.multiError = value;
    } else if (step.position < last) {
      if (value instanceof RespireServerError) this.queueErrors[step.position - this.multiAt - 1] = value;
    } else {
      this.options.tracker?.delete(this);
      this.steps[0]!.reportHealth(Health.Success);
      this.onExecReply(value);
    }
  }

  onStepFailed(step: TransactionStep, error: unknown, written: boolean): void {
    if (step.position === this.steps.length - 1) this.options.tracker?.delete(this);
    if (this.dropping) return;
    // MULTI is out on a live connection but EXEC will not follow (a step failed before its write:
    // an acquire deadline, an admission refused; or a step timed out while EXEC still waited for
    // the socket to drain): the server holds an open MULTI that would swallow later commands.
    const head = this.steps[this.multiAt]!;
    const exec = this.steps[this.steps.length - 1]!;
    const multiWritten = step === head ? written : head.state !== CommandState.Queued;
    const execUnwritten = step === exec ? !written : exec.state === CommandState.Queued;
    const openMulti = multiWritten && execUnwritten;
    this.dropUnwritten(error);
    if (openMulti) this.options.target.current?.request(['DISCARD']).catch(ignore);
    this.end(error, false);
  }

  /** The target reconnected: a MULTI written on the old connection died with it. */
  onNewConnection(): void {
    if (this.steps[this.multiAt]!.state === CommandState.Queued) return;
    const error = new RespireConnectionError('connection lost during a transaction; EXEC was not sent', {
      endpoint: this.options.target.endpoint,
      written: false,
    });
    this.dropUnwritten(error);
    this.end(error, false);
  }

  /**
   * Its node was replaced (a Sentinel switch; seed 000: before acceptance, unwatched transactions
   * move to the new primary). With nothing written, the run now belongs to `place` (the router
   * moves its queued steps there, in order, with the rest of the queue). With MULTI out but EXEC
   * not, the rest must never be written outside MULTI: it fails, unsent. With EXEC out, it ends
   * where it is (its reply, or `written: true` with the connection).
   */
  onNodeReplaced(place: TransactionPlace): void {
    const exec = this.steps[this.steps.length - 1]!;
    if (this.steps[0]!.state === CommandState.Queued) {
      this.options.tracker?.delete(this);
      this.options = { ...this.options, target: place.target, tracker: place.tracker };
      place.tracker?.add(this);
      return;
    }
    if (exec.state !== CommandState.Queued) return;
    const error = new RespireConnectionError(
      'the primary was replaced during a transaction; EXEC was not sent',
      {
        endpoint: this.options.target.endpoint,
        written: false,
      },
    );
    this.dropUnwritten(error);
    this.end(error, false);
  }

  /**
   * A failover group switched members (member-switch.ts; seed 000 "Retries": a failover group's
   * new active member admits it). With nothing written, the run's steps leave `from` whole and in
   * order, keeping their acquire deadlines, for the place `placeFor` gives its entries, where MULTI
   * is admitted afresh; a refused place ends it unsent. A run partly written stays (onNodeReplaced
   * of the old node's own closing ends it). A Cluster map that drops its node moves it so too.
   */
  moveWhole(from: UnwrittenSource, placeFor: TransactionPlacer): void {
    if (this.ended || this.steps[0]?.state !== CommandState.Queued) return;
    const place = placeFor(this.entries);
    // Placed where it already waits (a Cluster map that keeps its slot's owner): it stays, in order.
    if (!(place instanceof Error) && place.target === this.options.target) return;
    const own = new Set<unknown>(this.steps);
    const steps = from.takeUnwritten((command) => own.has(command));
    if (place instanceof Error) {
      this.options.tracker?.delete(this);
      this.end(place, false);
      return;
    }
    this.onNodeReplaced(place);
    for (const step of steps) if (!step.settled) place.target.enqueue(step);
  }

  /**
   * `options.signal` aborted: before MULTI is written nothing is sent; after, the rest must follow
   * it (the replies are read and dropped), and exec() rejects at once.
   */
  onAbort(reason: unknown): void {
    if (this.steps[this.multiAt]!.state === CommandState.Queued) this.dropUnwritten(reason);
    this.end(reason, false);
  }

  private onExecReply(value: RespValue): void {
    if (this.ended) return;
    const { endpoint } = this.options.target;
    if (this.multiError !== undefined) {
      this.end(this.multiError, false);
    } else if (value === null) {
      const error = new RespireError('transaction not executed: a watched key changed', { endpoint });
      if (this.options.watched) this.end(error, true, null);
      else this.end(error, true);
    } else if (value instanceof RespireServerError) {
      // EXECABORT: a queue-time error discarded the transaction; the first one is the cause.
      const cause = this.queueErrors.find((error) => error !== undefined);
      if (this.redirected(value.code === 'EXECABORT' ? cause : value)) return;
      const clustered = this.options.redirect !== undefined;
      this.end(discardedTransactionError(value, cause, endpoint, clustered), value.code === 'EXECABORT');
    } else if (Array.isArray(value) && value.length === this.entries.length) {
      this.deliver(value);
    } else {
      this.end(new RespireError('unexpected EXEC reply', { endpoint }), false);
    }
  }

  /**
   * The EXEC failed with an error the router follows (TransactionRedirect): the same entries run
   * again, whole, where it says; this run ends without settling them, and settles as that one does.
   */
  private redirected(cause: RespireServerError | undefined): boolean {
    const { redirect } = this.options;
    if (cause === undefined || redirect === undefined) return false;
    const hops = (this.options.hops ?? 0) + 1;
    const place = redirect(cause, hops, this.options.asking === true);
    if (place === undefined) return false;
    this.ended = true;
    const signal = this.options.signal;
    if (signal !== undefined) unwatchSignal(signal, this);
    const next = new TransactionRun(this.entries, {
      ...this.options,
      target: place.target,
      tracker: place.tracker,
      redirect: place.redirect,
      asking: place.asking,
      hops,
    });
    next.promise.then(this.resolveRun, this.rejectRun);
    // A closing client ends the backoff: the run fails unsent (nothing of it was written).
    if (place.pause === undefined) next.start();
    else
      place.pause(() => next.start(), {
        reject: (error) => next.end(error, false),
        move: (placeFor) => next.startAt(placeFor),
      });
    return true;
  }

  /** Settles each entry from its EXEC result (its own reply conversion applied), then the run. */
  private deliver(replies: RespValue[]): void {
    const results: RespValue[] = new Array(replies.length);
    for (let i = 0; i < replies.length; i++) {
      const entry = this.entries[i]!;
      const reply = replies[i]!;
      let result: unknown = reply;
      if (reply instanceof Error) entry.reject(reply);
      else if (entry.transform === undefined) entry.resolve(reply);
      else {
        try {
          result = entry.transform(reply);
          entry.resolve(result);
        } catch (error) {
          result = error;
          entry.reject(error);
        }
      }
      results[i] = result as RespValue;
    }
    this.finish(true);
    this.resolveRun(results);
  }

  /** Fails every step not yet written, so none goes out without the ones before it. */
  private dropUnwritten(error: unknown): void {
    this.dropping = true;
    for (const step of this.steps) if (step.state === CommandState.Queued) step.reject(error);
    this.dropping = false;
  }

  /**
   * Settles the entries and the run: with `conflict` null it resolves null (a WATCH conflict in a
   * session); otherwise it rejects, each entry with its own queue-time error or with `error`.
   */
  end(error: unknown, watchCleared: boolean, conflict?: null): void {
    if (this.ended) return;
    this.steps[0]?.reportHealth(healthOf(error));
    for (let i = 0; i < this.entries.length; i++) this.entries[i]!.reject(this.queueErrors[i] ?? error);
    this.finish(watchCleared, error instanceof RespireCircuitOpenError);
    if (conflict === null) this.resolveRun(null);
    else this.rejectRun(error);
  }

  private finish(watchCleared: boolean, circuitRejected = false): void {
    this.ended = true;
    const signal = this.options.signal;
    if (signal !== undefined) unwatchSignal(signal, this);
    this.options.onEnd?.({ watchCleared, circuitRejected });
  }
}

function ignore(): void {}
