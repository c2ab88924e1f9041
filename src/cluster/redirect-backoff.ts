// The pause before a TRYAGAIN or CLUSTERDOWN command is sent again (PROTOCOL.md §2.3: back off,
// retry a bounded number of times): 10, 20, 40 … up to 160 ms by hop, and the commands (and
// transactions and WATCHes) waiting it out, which are in no node's queue, so closing the client
// must fail them itself. Also in no node's queue: commands waiting for their keys' lookup
// (key-lookup.ts) or a refresh (a retry whose slot owner is lost) before their first send. A
// failover group switching away from the member takes both kinds of command (takeCommands).
import type { TransactionPlacer } from '../client/transactions/transaction-run.js';
import type { RespireEndpoint } from '../errors.js';
import { clientClosedError, unreachableError } from '../transport/channel-errors.js';
import { Command } from '../transport/command.js';
import type { Clock } from '../util/clock.js';
import { startTimer, stopTimer, type Timer } from '../util/timers.js';
import { stillToSend } from './cluster-attempt.js';

/** What waits out a backoff: a command (or a part), or a transaction or WATCH to send again. */
export interface Waiting {
  /** A settled command is not failed again (absent: the waiter ends itself once). */
  readonly settled?: boolean;
  reject(error: unknown): void;
  /** A transaction (transaction-run.ts PausedRun): moved by a failover switch. */
  readonly move?: ((placeFor: TransactionPlacer) => void) | undefined;
}

const RETRY_BACKOFF_MS = 10;
const RETRY_BACKOFF_MAX_MS = 160;

/** The pause before hop `hops` of a TRYAGAIN or CLUSTERDOWN. */
function backoff(hops: number): number {
  return Math.min(RETRY_BACKOFF_MAX_MS, RETRY_BACKOFF_MS * 2 ** (hops - 1));
}

export class RedirectBackoff {
  /** Commands waiting out a backoff, by their timer. */
  private readonly waiting = new Map<Timer, Waiting>();
  /** Commands waiting for a lookup or a refresh before their first send. */
  private readonly deferred = new Set<Command<unknown>>();

  constructor(private readonly clock: Clock) {}

  /**
   * Runs `send` after the backoff for the hop (TRYAGAIN, CLUSTERDOWN, a target to look up). The
   * timer is unref'd, so closing fails what still waits (`failAll`): otherwise close() would
   * resolve with the command pending, and nothing would keep the process alive for it.
   */
  later(hops: number, origin: Waiting, send: () => void): void {
    const timer = startTimer(
      this.clock,
      () => {
        this.waiting.delete(timer);
        send();
      },
      backoff(hops),
      true,
    );
    this.waiting.set(timer, origin);
  }

  /** Runs `send` once `until` settles (undefined if it rejects), unless `takeCommands` took the command first. */
  after<T>(command: Command<unknown>, until: Promise<T>, send: (value: T | undefined) => void): void {
    this.deferred.add(command);
    const go = (value?: T) => {
      if (this.deferred.delete(command)) send(value);
    };
    until.then(go, () => go());
  }

  /**
   * As `after`, for a retry waiting for a topology read (its slot's owner, `owner`, lost): its
   * acquire deadline (`acquireTimeout` from now) starts now, as if it waited in `owner`'s queue,
   * and `send` gets it to keep; past it, the retry fails unsent as it would have there. A refresh
   * can take a `connectTimeout` per node asked, far past the caller's deadline.
   */
  within(
    command: Command<unknown>,
    until: Promise<unknown>,
    acquireTimeout: number,
    owner: RespireEndpoint,
    send: (deadline: number) => void,
  ): void {
    const deadline = this.clock.now() + acquireTimeout;
    const expire = () => {
      if (this.deferred.delete(command)) command.reject(unreachableError(owner, undefined));
    };
    const timer = startTimer(this.clock, expire, acquireTimeout, true);
    this.after(command, until, () => {
      stopTimer(this.clock, timer);
      send(deadline);
    });
  }

  /**
   * A failover group switches away from this member (member-switch.ts): the commands waiting out a
   * backoff were answered TRYAGAIN or CLUSTERDOWN, so nothing of theirs ran, and the deferred ones
   * were never sent; they are taken out, their timers stopped, to be sent to the new member.
   * Transactions (whose EXEC was answered TRYAGAIN: nothing ran) start where `placeFor` puts them;
   * WATCHes stay.
   */
  takeCommands(placeFor: TransactionPlacer): Command<unknown>[] {
    const taken = [...this.deferred].filter(stillToSend);
    this.deferred.clear();
    for (const [timer, origin] of this.waiting) {
      const command = origin instanceof Command;
      if (!command && origin.move === undefined) continue;
      stopTimer(this.clock, timer);
      this.waiting.delete(timer);
      if (!command) origin.move!(placeFor);
      else if (stillToSend(origin)) taken.push(origin);
    }
    return taken;
  }

  /** Closing: the commands waiting out a backoff were not executed; they fail now, written: false. */
  failAll(endpoint: RespireEndpoint): void {
    for (const [timer, origin] of this.waiting) {
      stopTimer(this.clock, timer);
      if (origin.settled !== true) origin.reject(clientClosedError(endpoint));
    }
    this.waiting.clear();
  }
}
