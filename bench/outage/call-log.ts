// Every call a contender's producers make: when it started, when and how it settled. Typed arrays
// sized before the run, so recording allocates nothing on the JavaScript heap whose growth the
// scenario measures.
import type { CallCounts } from './messages.js';

/** How a call ended. */
export const Outcome = {
  Pending: 0,
  Completed: 1,
  /** The client's fail-fast error: Respire's RespireCircuitOpenError. */
  RejectedFast: 2,
  TimedOut: 3,
  /** Any other error: a lost connection, no connection in time, … */
  Failed: 4,
} as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** Call groups: in a cluster's run, calls to the proxied primary's slots, and the others. */
export const Group = { Direct: 0, Proxied: 1 } as const;

export type FailureOutcome = typeof Outcome.RejectedFast | typeof Outcome.TimedOut | typeof Outcome.Failed;

/** The run's phases in the contender's `performance.now()` milliseconds. */
export interface Timeline {
  startedAt: number;
  blipAt: number;
  healAt: number;
  /** The producers stopped making calls. */
  stoppedAt: number;
  /** What was still pending then (a grace period after `stoppedAt`) counts as pending at the end. */
  settledAt: number;
  /** When the circuit first opened during the blip; undefined without a breaker or a trip. */
  circuitOpenedAt: number | undefined;
}

export class CallLog {
  /**
   * `performance.now()` of each call's start and of when its caller saw it settle, in the call's
   * reaction (NaN while pending).
   */
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  /**
   * When the client settled the call (NaN while pending): for a call whose promise was settled
   * when it returned (a rejection decided inside the call), the moment it returned; otherwise the
   * same as `ends`, as no earlier moment is known. What lies between the two is what ran before the
   * caller's reaction: microtasks queued ahead of it.
   */
  readonly settles: Float64Array;
  readonly outcomes: Uint8Array;
  /** A group per call, as the producers said: in a cluster's run, 1 for the proxied primary's calls. */
  readonly groups: Uint8Array;
  /** Calls recorded (a prefix of the arrays). */
  length = 0;
  /** Calls beyond the capacity: counted, not recorded. */
  unrecorded = 0;
  readonly counts: CallCounts = {
    completed: 0,
    rejectedFast: 0,
    timedOut: 0,
    failed: 0,
    pending: 0,
    notIssued: 0,
  };

  constructor(readonly capacity: number) {
    this.starts = new Float64Array(capacity);
    this.ends = new Float64Array(capacity).fill(Number.NaN);
    this.settles = new Float64Array(capacity).fill(Number.NaN);
    this.outcomes = new Uint8Array(capacity);
    this.groups = new Uint8Array(capacity);
  }

  /** A call starts now; returns its index, or -1 when the log is full. */
  start(now: number, group = 0): number {
    this.counts.pending++;
    if (this.length === this.capacity) {
      this.unrecorded++;
      return -1;
    }
    this.starts[this.length] = now;
    this.groups[this.length] = group;
    return this.length++;
  }

  /** The call settled at `settledAt` (see `settles`; default `now`) and its caller saw it `now`. */
  settle(
    index: number,
    outcome: Exclude<Outcome, typeof Outcome.Pending>,
    now: number,
    settledAt = now,
  ): void {
    this.counts.pending--;
    switch (outcome) {
      case Outcome.Completed:
        this.counts.completed++;
        break;
      case Outcome.RejectedFast:
        this.counts.rejectedFast++;
        break;
      case Outcome.TimedOut:
        this.counts.timedOut++;
        break;
      default:
        this.counts.failed++;
    }
    if (index < 0) return;
    this.ends[index] = now;
    this.settles[index] = settledAt;
    this.outcomes[index] = outcome;
  }

  /** The schedule offered a call that no producer was free to make. */
  missed(calls: number): void {
    this.counts.notIssued += calls;
  }

  get issued(): number {
    const { completed, rejectedFast, timedOut, failed, pending } = this.counts;
    return completed + rejectedFast + timedOut + failed + pending;
  }
}
