// One endpoint's circuit: the state controller of seed 000 ("How a circuit opens and recovers",
// "Rejections") with BREAKER.md decisions 1-14 and 18. Synchronous: no timers, nothing async.

import { acquireResult } from './acquire-result.js';
import { AdmitRejection, type CircuitAcquireResult, CircuitOutcome } from './admission.js';
import { AdmissionSlots } from './admission-slots.js';
import {
  type CircuitState,
  type CircuitStateRecord,
  ClosedState,
  HalfOpenState,
  nextGeneration,
  OpenState,
} from './circuit-state.js';
import {
  type CircuitBreakerEnvironment,
  clockOf,
  listenerErrorReporterOf,
  type MonotonicClock,
  type RandomSource,
  randomOf,
} from './environment.js';
import { openDelay } from './open-delay.js';
import {
  type ResolvedCircuitBreakerOptions,
  type RespireCircuitBreakerOptions,
  validateCircuitBreakerOptions,
} from './options.js';
import { OutcomeHistory } from './outcome-history.js';
import { Notifier } from './transition-notifier.js';
import { shouldTrip } from './trip-rule.js';

/** Called after each state change, once the new state is committed. */
export type TransitionListener = (from: CircuitState, to: CircuitState) => void;

/** A read-only picture of a circuit, for tests and metrics. */
export interface CircuitSnapshot {
  /** `'closed'`, `'open'` or `'half_open'`. */
  readonly state: CircuitState;
  /** Failures in the history, after evicting expired outcomes. */
  readonly failures: number;
  /** Outcomes in the history, after evicting expired outcomes. */
  readonly total: number;
  /** Half-open probes admitted and not completed; 0 in other states. */
  readonly probesInFlight: number;
  /** Successful probes of the current half-open round; 0 in other states. */
  readonly probeSuccesses: number;
  /** When an open circuit starts admitting probes (clock ms); `null` unless open. */
  readonly openUntil: number | null;
  /** Trips since the circuit last closed; drives the growing open delay. */
  readonly consecutiveTrips: number;
  /** Admissions of any state not yet completed. */
  readonly admissionsInFlight: number;
}

/**
 * A circuit breaker with an injected clock. Two ways in, same state machine:
 * - `tryAcquire()` returns an admission object (`success()`, `failure()`, `release()`) or a
 *   rejection with `retryAfter`. One small object per admission, no closures.
 * - `tryAdmit()` returns a ticket (an integer, 0 or more) or a negative `AdmitRejection` code, and
 *   `complete(ticket, outcome)` ends it. Allocates nothing; the client's pipeline uses it.
 * Either way every admission must be completed once; further completions are no-ops.
 */
export class CircuitBreaker {
  /** The options it runs with, validated and with defaults filled. */
  readonly options: ResolvedCircuitBreakerOptions;
  private current: CircuitStateRecord = new ClosedState(0);
  private readonly history: OutcomeHistory;
  private slots = new AdmissionSlots();
  private readonly transitions: Notifier<[CircuitState, CircuitState]>;
  private readonly clock: MonotonicClock;
  private readonly random: RandomSource;
  /**
   * `time[0]` is the latest clock reading, clamped never to go backwards (BREAKER.md 4). A cell,
   * shared with the history, so that no double crosses a call on the hot path (see OutcomeHistory).
   */
  private readonly time = new Float64Array([Number.NEGATIVE_INFINITY]);
  private consecutiveTrips = 0;
  private retryAfterMs = 1;
  private idleCallback: (() => void) | null = null;

  /** @throws RespireConfigurationError when an option is out of range. */
  constructor(options?: RespireCircuitBreakerOptions, environment: CircuitBreakerEnvironment = {}) {
    this.options = validateCircuitBreakerOptions(options);
    this.history = new OutcomeHistory(
      this.options.maximumSampleCount,
      this.options.samplingWindow,
      this.time,
    );
    this.clock = clockOf(environment);
    this.random = randomOf(environment);
    this.transitions = new Notifier(listenerErrorReporterOf(environment));
  }

  /** The committed state. An open circuit past its deadline stays `open` until the next admission attempt. */
  get state(): CircuitState {
    return this.current.name;
  }

  /** Admissions not yet completed; the registry keeps a breaker while this is above 0. */
  get admissionsInFlight(): number {
    return this.slots.inFlight;
  }

  /** The `retryAfter` of the latest `AdmitRejection.Open` (from `tryAdmit()` or `check()`), in milliseconds. */
  get lastRetryAfter(): number {
    return this.retryAfterMs;
  }

  /**
   * Checks and takes admission in one synchronous step. Never rejects while closed.
   * @throws RespireError when `MAX_ADMISSIONS_IN_FLIGHT` admissions are in flight (a leak: every
   *   admission must be completed).
   */
  tryAcquire(): CircuitAcquireResult {
    return acquireResult(this, this.tryAdmit(), this.retryAfterMs);
  }

  /**
   * The allocation-free admission: a ticket (0 or more) for `complete`, or `AdmitRejection.Open`
   * (see `lastRetryAfter`), `AdmitRejection.ProbesFull` or `AdmitRejection.Saturated`. Reads no
   * clock while closed.
   */
  tryAdmit(): number {
    const state = this.current;
    if (state.name === 'closed') return this.slots.issue(state.generation);
    return this.admitWhileNotClosed(state);
  }

  /**
   * What `tryAdmit()` would say now, without taking anything or changing state: 0 when it would
   * admit (an open circuit past its deadline would admit a probe, but stays open here), else
   * `AdmitRejection.Open` (with `lastRetryAfter` set) or `AdmitRejection.ProbesFull`. For a
   * command that has to wait for a connection before it can be admitted.
   */
  check(): number {
    const state = this.current;
    if (state.name === 'closed') return 0;
    if (state.name === 'half_open') return this.probesFull(state) ? AdmitRejection.ProbesFull : 0;
    return this.openRejection(state);
  }

  /**
   * Whether a ticket in flight was admitted by the current state (an early probe ticket whose
   * half-open round has not ended). False for a completed or unknown ticket.
   */
  isCurrent(ticket: number): boolean {
    return this.slots.generationOf(ticket) === this.current.generation;
  }

  /**
   * Ends an admission with its outcome. Returns `false`, changing nothing, when the ticket is not
   * in flight (completed before, or never issued). An outcome from an earlier state's admission
   * (BREAKER.md 11) only frees its ticket. Any `outcome` other than success or failure is none.
   */
  complete(ticket: number, outcome: CircuitOutcome): boolean {
    const generation = this.slots.redeem(ticket);
    if (generation < 0) return false;
    const state = this.current;
    if (generation === state.generation) {
      if (state.name === 'closed') {
        if (outcome === CircuitOutcome.Success) this.recordWhileClosed(state, false);
        else if (outcome === CircuitOutcome.Failure) this.recordWhileClosed(state, true);
      } else if (state.name === 'half_open') {
        this.completeProbe(state, outcome);
      }
    }
    if (this.slots.inFlight === 0 && this.idleCallback !== null) this.idleCallback();
    return true;
  }

  /** Subscribes to state changes; returns the function that unsubscribes. */
  onTransition(listener: TransitionListener): () => void {
    return this.transitions.subscribe(listener);
  }

  /** The current counts, after evicting expired outcomes. */
  snapshot(): CircuitSnapshot {
    this.readClock();
    this.history.evictExpired();
    const state = this.current;
    return Object.freeze({
      state: state.name,
      failures: this.history.failures,
      total: this.history.total,
      probesInFlight: state.name === 'half_open' ? state.probesInFlight : 0,
      probeSuccesses: state.name === 'half_open' ? state.probeSuccesses : 0,
      openUntil: state.name === 'open' ? state.openUntil : null,
      consecutiveTrips: this.consecutiveTrips,
      admissionsInFlight: this.slots.inFlight,
    });
  }

  /** @internal The registry's hook, called whenever the last admission in flight completes. */
  setIdleCallback(callback: (() => void) | null): void {
    this.idleCallback = callback;
  }

  /**
   * @internal For a new breaker, before any admission: starts at `state` after `consecutiveTrips`
   * trips, its tickets from `slots` (a retired shared handle's stand-in, shared/retired-circuit.ts).
   */
  resume(state: CircuitStateRecord, consecutiveTrips: number, slots: AdmissionSlots): void {
    this.current = state;
    this.consecutiveTrips = consecutiveTrips;
    this.slots = slots;
  }

  /** Open: reject until the deadline, then become half-open lazily, this attempt being a probe (BREAKER.md 8, 9). */
  private admitWhileNotClosed(state: OpenState | HalfOpenState): number {
    if (state.name === 'half_open') {
      if (this.probesFull(state)) return AdmitRejection.ProbesFull;
      const ticket = this.slots.issue(state.generation);
      if (ticket >= 0) state.probesInFlight++;
      return ticket;
    }
    const rejection = this.openRejection(state);
    if (rejection !== 0) return rejection;
    const halfOpen = new HalfOpenState(nextGeneration(state.generation));
    // The probe is taken before listeners run, so a re-entrant listener cannot take its slot.
    const ticket = this.slots.issue(halfOpen.generation);
    if (ticket < 0) return ticket;
    halfOpen.probesInFlight = 1;
    this.current = halfOpen;
    this.transitions.emit('open', 'half_open');
    return ticket;
  }

  /** Whether every probe slot of the half-open round is taken (BREAKER.md 9). */
  private probesFull(state: HalfOpenState): boolean {
    return state.probesInFlight + state.probeSuccesses >= this.options.halfOpenProbeCount;
  }

  /**
   * Reads the clock: `AdmitRejection.Open`, with `retryAfterMs = max(1, ceil(openUntil - now))`,
   * before the deadline (BREAKER.md 13); 0 once it has passed.
   */
  private openRejection(state: OpenState): number {
    this.readClock();
    const now = this.time[0]!;
    if (now >= state.openUntil) return 0;
    this.retryAfterMs = Math.max(1, Math.ceil(state.openUntil - now));
    return AdmitRejection.Open;
  }

  /** Record, then run the trip test on a failure (BREAKER.md 1-3, 6). */
  private recordWhileClosed(state: ClosedState, failed: boolean): void {
    this.readClock();
    const history = this.history;
    history.record(failed);
    if (
      failed &&
      shouldTrip(
        history.failures,
        history.total,
        this.options.minimumFailureCount,
        this.options.failureRateThreshold,
      )
    ) {
      this.open(state);
    }
  }

  /** A probe's end: success counts toward closing, failure reopens, none frees its slot (BREAKER.md 10). */
  private completeProbe(state: HalfOpenState, outcome: CircuitOutcome): void {
    state.probesInFlight--;
    if (outcome === CircuitOutcome.Success) {
      state.probeSuccesses++;
      if (state.probeSuccesses >= this.options.halfOpenProbeCount) this.close(state);
    } else if (outcome === CircuitOutcome.Failure) {
      this.readClock();
      this.open(state);
    }
  }

  /** A trip sets the deadline once (BREAKER.md 7); the delay may grow per consecutive trip (18). */
  private open(from: ClosedState | HalfOpenState): void {
    const trips = this.consecutiveTrips + 1;
    const delay = openDelay(trips, this.options, this.random);
    this.consecutiveTrips = trips;
    this.current = new OpenState(nextGeneration(from.generation), this.time[0]! + delay);
    this.transitions.emit(from.name, 'open');
  }

  /** Entering closed forgets the history and the trip count (BREAKER.md 5, 18). */
  private close(from: HalfOpenState): void {
    this.history.clear();
    this.consecutiveTrips = 0;
    this.current = new ClosedState(nextGeneration(from.generation));
    this.transitions.emit('half_open', 'closed');
  }

  /** Advances `time[0]` to the clock's reading unless that is earlier (or NaN). */
  private readClock(): void {
    const now = this.clock.now();
    if (now > this.time[0]!) this.time[0] = now;
  }
}
