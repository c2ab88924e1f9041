// One command's life: queued (never sent, may be dropped), written (its reply is owed), settled.
// The record is the only per-command allocation besides its promise (STYLE.md "Hot path").
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { Health, healthOf } from './health.js';
import { type AbortTarget, unwatchSignal, watchSignal } from './signal-watch.js';

/** Receives the health outcome of a command it admitted (the circuit breaker, through its gate). */
export interface HealthSink {
  complete(command: Command<unknown>, health: Health): void;
}

/**
 * Told once, synchronously, right after a command's promise settles: a batch gathering its
 * entries without a promise reaction per entry. `outcome` is the value or the rejection.
 */
export interface SettleObserver {
  commandSettled(command: Command<unknown>, failed: boolean, outcome: unknown): void;
}

/** Per-command options (API.md "Per-command options"). */
export interface CommandOptions {
  /** Aborting before the write drops the command; after it, the reply is read and discarded. */
  signal?: AbortSignal | undefined;
  /** Reply deadline in ms, counted from the write; overrides `commandTimeout`. 0 = none. */
  timeout?: number | undefined;
  /** Resolve once written; the reply is read and dropped. */
  fireAndForget?: boolean | undefined;
}

/** Turns a raw reply into the value a typed helper promises. May throw; the command then rejects. */
export type ReplyTransform<T> = (reply: RespValue) => T;

export const CommandState = {
  /** Not written: may still be dropped, and Redis never saw it. */
  Queued: 0,
  /** Written to the socket: its reply is owed. */
  Written: 1,
  Settled: 2,
} as const;
export type CommandState = (typeof CommandState)[keyof typeof CommandState];

/** What the pipeline knows about a command beyond its arguments, as bits. */
export const CommandFlags = {
  None: 0,
  /** Exempt from the reply deadline (BLPOP, WAIT, …). */
  Blocking: 1,
  FireAndForget: 2,
  /** Part of the connection handshake: written before user commands, never gated. */
  Handshake: 4,
  /** A (P|S)(UN)SUBSCRIBE whose confirmations arrive as push frames (RESP3) or replies (RESP2). */
  Subscription: 8,
  /** A step written after an admitted MULTI: the transaction was admitted once, as a unit. */
  TransactionStep: 16,
  /**
   * The EVALSHA of a script run (client/scripting.ts): the server's NOSCRIPT makes the run send
   * EVAL instead, so that reply is no caller's error and is not told to the error sink.
   */
  ScriptBySha: 32,
  /** A retry of a failed command (client-core.ts): a Cluster router looks up its owner first. */
  Retry: 64,
  /** Read through the client-side cache (`withoutCache()`): never answered from it. */
  NoCache: 128,
} as const;

/**
 * A command in flight. Settles exactly once: `resolve`/`reject` after the first call are no-ops.
 * Its signal is watched through one listener per signal (signal-watch.ts), which it leaves when
 * it settles, so a long-lived signal shared by many commands costs O(1) per command.
 */
export class Command<T = RespValue> implements AbortTarget {
  state: CommandState = CommandState.Queued;
  /** Set when aborted after the write: the reply is still read, then dropped. */
  discardReply = false;
  /** Absolute deadline (clock ms) of the current phase: acquire while queued, reply once written. */
  deadline = 0;
  /** Clock time of the write, for the connection's unresponsive rule. */
  writtenAt = 0;
  /** For subscriptions: how many confirmations complete the command. */
  confirmationsLeft = 0;
  /** Opaque slot for the admission gate (the circuit breaker's ticket). */
  admission: unknown = undefined;
  /** The gate that admitted it, until its health outcome has been reported (exactly once). */
  gate: HealthSink | undefined = undefined;
  /** Told what the caller's promise rejects with, once (the client's `redis.client.errors`). */
  errorSink: ((error: unknown) => void) | undefined = undefined;
  /** Told when the promise settles; `position` is the observer's own index of the command. */
  observer: SettleObserver | undefined = undefined;
  position = 0;
  readonly promise: Promise<T>;
  private settleResolve!: (value: T) => void;
  private settleReject!: (error: unknown) => void;

  constructor(
    readonly args: readonly RespArgument[],
    readonly flags: number,
    readonly transform: ReplyTransform<T> | undefined,
    readonly signal: AbortSignal | undefined,
    /** Reply deadline in ms after the write; 0 = none. */
    readonly timeoutMs: number,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.settleResolve = resolve;
      this.settleReject = reject;
    });
    if (signal !== undefined) watchSignal(signal, this);
  }

  /** The upper-cased command name, for messages and routing. */
  get name(): string {
    const first = this.args[0];
    return typeof first === 'string' ? first.toUpperCase() : String(first);
  }

  get settled(): boolean {
    return this.state === CommandState.Settled;
  }

  /** Delivers a reply: transformed, or rejected when it is an error reply or the transform throws. */
  reply(value: RespValue): void {
    // A reply is a healthy endpoint, whatever happens next (seed 000: a throwing converter cannot
    // change health). A fire-and-forget send records nothing: its reply is discarded.
    if (this.gate !== undefined) {
      this.reportHealth((this.flags & CommandFlags.FireAndForget) !== 0 ? Health.None : Health.Success);
    }
    if (this.state === CommandState.Settled) return;
    if (this.discardReply) {
      this.finish();
      return;
    }
    if (value instanceof Error) {
      this.reject(value);
      return;
    }
    if (this.transform === undefined) {
      this.resolve(value as T);
      return;
    }
    let result: T;
    try {
      result = this.transform(value);
    } catch (error) {
      this.reject(error);
      return;
    }
    this.resolve(result);
  }

  resolve(value: T): void {
    if (this.state === CommandState.Settled || !this.finish()) return;
    this.settleResolve(value);
    this.observer?.commandSettled(this as Command<unknown>, false, value);
  }

  reject(error: unknown): void {
    // Before the settled check: a fire-and-forget command settled at its write still reports a
    // transport failure of its reply slot (seed 000 "Standalone fire-and-forget").
    if (this.gate !== undefined) this.reportHealth(healthOf(error));
    if (this.state === CommandState.Settled || !this.finish()) return;
    this.errorSink?.(error);
    this.settleReject(error);
    this.observer?.commandSettled(this as Command<unknown>, true, error);
  }

  /** Its signal aborted: see CommandOptions.signal. The watch has already let it go. */
  onAbort(reason: unknown): void {
    if (this.state === CommandState.Settled) return;
    // Cancellation records nothing, even after the write (an accepted write may still run).
    if (this.gate !== undefined) this.reportHealth(Health.None);
    if (this.state === CommandState.Written) {
      // The reply is still owed on the wire; keep the slot so the FIFO stays aligned.
      this.discardReply = true;
      this.errorSink?.(reason);
      this.settleReject(reason);
      this.observer?.commandSettled(this as Command<unknown>, true, reason);
      return;
    }
    this.reject(reason);
  }

  /** Reports the health outcome to the gate that admitted the command; later reports are ignored. */
  reportHealth(health: Health): void {
    const gate = this.gate;
    if (gate === undefined) return;
    this.gate = undefined;
    gate.complete(this as Command<unknown>, health);
  }

  /**
   * Marks the command settled. Returns false when its caller was already told, by onAbort after
   * the write: the promise, error sink and observer then hear nothing more (a batch counts each
   * entry once), whatever ends the owed reply (the reply, a connection loss, its deadline).
   */
  private finish(): boolean {
    this.state = CommandState.Settled;
    if (this.discardReply) return false;
    this.removeListener();
    return true;
  }

  private removeListener(): void {
    if (this.signal !== undefined) unwatchSignal(this.signal, this);
  }
}
