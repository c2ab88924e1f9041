// What `tryAcquire` and `tryAdmit` return (API.md "Standalone breaker"): admissions, rejections,
// outcome codes and the ticket codes of the allocation-free API.

/** How an admitted command ended, for `CircuitBreaker.complete`. */
export const CircuitOutcome = Object.freeze({
  /** A reply arrived (including ordinary Redis error replies). */
  Success: 0,
  /** A health failure (seed 000 "Health classification"). */
  Failure: 1,
  /** No health outcome: cancelled, capacity timeout, writer failed before sending. Frees a probe slot. */
  None: 2,
} as const);
export type CircuitOutcome = (typeof CircuitOutcome)[keyof typeof CircuitOutcome];

/** The negative results of `CircuitBreaker.tryAdmit`; a ticket is never negative. */
export const AdmitRejection = Object.freeze({
  /** Open: `lastRetryAfter` holds the milliseconds left. */
  Open: -1,
  /** Half-open with every probe slot taken: retry-after is `null`. */
  ProbesFull: -2,
  /**
   * `MAX_ADMISSIONS_IN_FLIGHT` admissions are in flight already: not a circuit state but a
   * capacity limit, so the caller decides what the command fails with. `tryAcquire` throws.
   */
  Saturated: -3,
} as const);

/** An admitted command. Call exactly one of the three methods, once; later calls are no-ops. */
export interface CircuitAdmission {
  /** Always `true`: the command may be sent. */
  readonly admitted: true;
  /** The command got a reply. */
  success(): void;
  /** The command failed in a way that counts against the endpoint's health. */
  failure(): void;
  /** The command ended with no health outcome (cancelled, not sent). Frees a probe slot. */
  release(): void;
}

/** A refused admission; nothing may be sent. */
export interface CircuitRejection {
  /** Always `false`: nothing may be sent. */
  readonly admitted: false;
  /**
   * Milliseconds left of the open delay (`ceil`, at least 1), or `null` when the circuit is
   * half-open and every probe slot is taken (BREAKER.md 13). A snapshot, not a permission.
   */
  readonly retryAfter: number | null;
}

/** What `tryAcquire()` returns: branch on `admitted`. */
export type CircuitAcquireResult = CircuitAdmission | CircuitRejection;

/** Whoever redeems tickets: the breaker. */
export interface TicketCompleter {
  complete(ticket: number, outcome: CircuitOutcome): boolean;
}

/**
 * The admission object of `tryAcquire`: one small object, no closures. Its own `done` flag makes
 * every call after the first a no-op, however long it is kept.
 */
export class TicketAdmission implements CircuitAdmission {
  readonly admitted = true as const;
  private done = false;

  constructor(
    private readonly breaker: TicketCompleter,
    private readonly ticket: number,
  ) {}

  success(): void {
    this.finish(CircuitOutcome.Success);
  }

  failure(): void {
    this.finish(CircuitOutcome.Failure);
  }

  release(): void {
    this.finish(CircuitOutcome.None);
  }

  private finish(outcome: CircuitOutcome): void {
    if (this.done) return;
    this.done = true;
    this.breaker.complete(this.ticket, outcome);
  }
}

/** The rejection while half-open with every slot taken: shared, frozen, never allocated per call. */
export const PROBES_FULL_REJECTION: CircuitRejection = Object.freeze({ admitted: false, retryAfter: null });
