// One endpoint's circuit shared by every thread of a SharedCircuitRegistry: the state controller of
// seed 000 and BREAKER.md 1-14 and 18 over a SharedArrayBuffer slot. This object is one thread's
// handle; the state is the slot's. Closed admission is wait-free (one atomic load); the state word
// changes only by compareExchange; the history and the fields a transition writes change inside
// a short per-circuit guard (a compareExchange spin, never Atomics.wait), which a closed success
// mostly skips (one compareExchange, circuit-guard.ts). Exactly one thread makes each transition,
// and only its listeners hear of it.

import { acquireResult } from '../acquire-result.js';
import { AdmitRejection, type CircuitAcquireResult, CircuitOutcome } from '../admission.js';
import { AdmissionSlots, MAX_ADMISSIONS_IN_FLIGHT } from '../admission-slots.js';
import type { CircuitBreaker, CircuitSnapshot, TransitionListener } from '../circuit-breaker.js';
import type { CircuitState } from '../circuit-state.js';
import type { MonotonicClock, RandomSource } from '../environment.js';
import { openDelay } from '../open-delay.js';
import type { ResolvedCircuitBreakerOptions } from '../options.js';
import { historyStorage, OutcomeHistory } from '../outcome-history.js';
import { Notifier } from '../transition-notifier.js';
import { shouldTrip } from '../trip-rule.js';
import type { SharedCircuitContext } from './circuit-context.js';
import { CircuitGuard } from './circuit-guard.js';
import {
  S_CLOSED_GENERATION,
  S_GENERATION,
  S_OPEN_UNTIL,
  S_PROBE_TAKEN,
  S_STATE,
  S_TRIPS,
} from './layout.js';
import { retiredCircuit } from './retired-circuit.js';
import { OpenDeadline, ProbeStamp } from './slot-cells.js';
import { CLOSED, HALF_OPEN, OPEN, type StateWordLayout, stateName, stateOf } from './state-word.js';

/**
 * Called after a transition this thread made, once the new state word is committed, with the new
 * state's generation (every transition starts one; a `TransitionListener` may ignore it).
 */
export type SharedTransitionListener = (from: CircuitState, to: CircuitState, generation: number) => void;

/**
 * A thread's handle on a shared circuit, with `CircuitBreaker`'s admission API. Tickets and
 * admission objects belong to the thread that took them. `admissionsInFlight` and the listeners
 * are this thread's; the state, counts and deadline are everyone's.
 */
export class SharedCircuit {
  /** The registry's circuit options, validated and with defaults filled. */
  readonly options: ResolvedCircuitBreakerOptions;
  /** The buffer's cells; once retired, `NOT_CLOSED` (and `stateCell`, `closedCell` 0). */
  private cells: Int32Array;
  private readonly words: StateWordLayout;
  private stateCell: number;
  /** The slot's recent whole generation (state-word.ts `wholeGeneration`). */
  private readonly generationCell: number;
  /** The whole generation while closed, else -1 (layout.ts `S_CLOSED_GENERATION`). */
  private closedCell: number;
  private readonly guard: CircuitGuard;
  private readonly openUntil: OpenDeadline;
  private readonly tripsCell: number;
  private readonly probeTaken: ProbeStamp;
  private readonly probeTimeout: number;
  private readonly history: OutcomeHistory;
  /** The circuit's clamped clock, shared (BREAKER.md 4): written only inside the guard. */
  private readonly circuitTime: Float64Array;
  /** This thread's clamped clock reading, for admission. */
  private readonly time = new Float64Array([Number.NEGATIVE_INFINITY]);
  private slots = new AdmissionSlots();
  private readonly transitions: Notifier<[CircuitState, CircuitState, number]>;
  private readonly clock: MonotonicClock;
  private readonly random: RandomSource;
  private retryAfterMs = 1;
  private idleCallback: (() => void) | null = null;
  private readonly context: SharedCircuitContext;
  /** Once retired, what the handle answers from (retired-circuit.ts); else null. */
  private standIn: CircuitBreaker | null = null;

  /**
   * @internal Made by `SharedCircuitRegistry` (`circuit` or `acquire`); `lane` is the view's holder
   * record (circuit-guard.ts).
   */
  constructor(context: SharedCircuitContext, slot: number, lane = -1) {
    const { layout, buffer, options } = context;
    this.options = options;
    this.context = context;
    this.cells = context.cells;
    this.words = context.words;
    this.stateCell = layout.cell(slot, S_STATE);
    this.generationCell = layout.cell(slot, S_GENERATION);
    this.closedCell = layout.cell(slot, S_CLOSED_GENERATION);
    this.openUntil = new OpenDeadline(this.cells, layout.cell(slot, S_OPEN_UNTIL));
    this.tripsCell = layout.cell(slot, S_TRIPS);
    this.probeTaken = new ProbeStamp(this.cells, layout.cell(slot, S_PROBE_TAKEN));
    this.probeTimeout = context.probeTimeout;
    this.circuitTime = new Float64Array(buffer, layout.timeByte(slot), 1);
    const storage = historyStorage(options.maximumSampleCount, buffer, layout.historyByte(slot));
    this.history = new OutcomeHistory(
      options.maximumSampleCount,
      options.samplingWindow,
      this.circuitTime,
      storage,
    );
    this.guard = new CircuitGuard(context, slot, lane, this.history, this.time);
    this.clock = context.clock;
    this.random = context.random;
    this.transitions = new Notifier(context.reportListenerError);
  }

  /** The state every thread sees now. An open circuit past its deadline stays `open` until an admission attempt. */
  get state(): CircuitState {
    return this.standIn?.state ?? stateName(Atomics.load(this.cells, this.stateCell));
  }

  /** This thread's admissions not yet completed. */
  get admissionsInFlight(): number {
    return this.standIn?.admissionsInFlight ?? this.slots.inFlight;
  }

  /** The `retryAfter` of this thread's latest `AdmitRejection.Open`, in milliseconds. */
  get lastRetryAfter(): number {
    return this.standIn?.lastRetryAfter ?? this.retryAfterMs;
  }

  /** As `CircuitBreaker.tryAcquire`. */
  tryAcquire(): CircuitAcquireResult {
    return acquireResult(this, this.tryAdmit(), this.lastRetryAfter);
  }

  /**
   * As `CircuitBreaker.tryAdmit`. Closed: one atomic load (the closed generation, which gives the
   * state and the ticket's whole generation at once) and a ticket from this thread's table.
   */
  tryAdmit(): number {
    const closedGeneration = Atomics.load(this.cells, this.closedCell);
    if (closedGeneration >= 0) return this.slots.issue(closedGeneration);
    return this.admitWhileNotClosed(Atomics.load(this.cells, this.stateCell));
  }

  /** As `CircuitBreaker.check`: what `tryAdmit()` would say now, taking nothing. */
  check(): number {
    if (this.standIn !== null) return this.standIn.check();
    for (;;) {
      const word = Atomics.load(this.cells, this.stateCell);
      const state = stateOf(word);
      if (state === CLOSED) return 0;
      if (state === HALF_OPEN)
        return this.words.taken(word) < this.options.halfOpenProbeCount || this.probesAbandoned()
          ? 0
          : AdmitRejection.ProbesFull;
      const rejection = this.openRejection(word);
      if (rejection !== RETRY) return rejection;
    }
  }

  /** Whether a ticket in flight was admitted by the current state's generation. */
  isCurrent(ticket: number): boolean {
    if (this.standIn !== null) return this.standIn.isCurrent(ticket);
    return this.slots.generationOf(ticket) === this.generationOf(Atomics.load(this.cells, this.stateCell));
  }

  /** As `CircuitBreaker.complete`: an outcome from an earlier generation only frees its ticket. */
  complete(ticket: number, outcome: CircuitOutcome): boolean {
    const generation = this.slots.redeem(ticket);
    // Once retired, the handle's table is empty: its tickets are the stand-in's.
    if (generation < 0) return this.standIn?.complete(ticket, outcome) ?? false;
    if (outcome === CircuitOutcome.Success) {
      // Closed, a success mostly skips the guard (circuit-guard.ts): one compareExchange.
      this.readClock();
      if (!this.guard.trySuccess(generation)) this.completeGuarded(generation, outcome);
    } else if (outcome === CircuitOutcome.Failure) {
      this.completeGuarded(generation, outcome);
    } else {
      // No outcome: only a probe of the current round frees its slot; nothing else to do.
      const word = Atomics.load(this.cells, this.stateCell);
      if (stateOf(word) === HALF_OPEN && this.generationOf(word) === generation)
        this.completeGuarded(generation, CircuitOutcome.None);
    }
    if (this.slots.inFlight === 0 && this.idleCallback !== null) this.idleCallback();
    return true;
  }

  /**
   * Subscribes to the transitions this thread makes (each transition is made by exactly one
   * thread, and heard only there); returns the function that unsubscribes.
   */
  onTransition(listener: SharedTransitionListener | TransitionListener): () => void {
    return this.transitions.subscribe(listener);
  }

  /** @internal For tests: the generation that admitted a ticket in flight, or -1. */
  ticketGeneration(ticket: number): number {
    return this.slots.generationOf(ticket);
  }

  /** The shared counts after evicting expired outcomes; `admissionsInFlight` is this thread's. */
  snapshot(): CircuitSnapshot {
    if (this.standIn !== null) return this.standIn.snapshot();
    this.readClock();
    this.guard.lock();
    let word: number;
    let failures: number;
    let total: number;
    try {
      this.advanceCircuitTime();
      this.history.evictExpired();
      word = Atomics.load(this.cells, this.stateCell);
      failures = this.history.failures;
      total = this.history.total;
    } finally {
      this.guard.unlock();
    }
    const state = stateOf(word);
    const words = this.words;
    return Object.freeze({
      state: stateName(word),
      failures,
      total,
      probesInFlight: state === HALF_OPEN ? words.taken(word) - words.successes(word) : 0,
      probeSuccesses: state === HALF_OPEN ? words.successes(word) : 0,
      openUntil: state === OPEN ? this.openUntil.read() : null,
      consecutiveTrips: Atomics.load(this.cells, this.tripsCell),
      admissionsInFlight: this.slots.inFlight,
    });
  }

  /**
   * @internal The registry lets go of this handle (its lane may go to another, circuit-guard.ts,
   * and its slot to another endpoint): from now on it answers from a stand-in of its own and never
   * touches the slot (retired-circuit.ts). Its cells become `NOT_CLOSED`, so a closed admission's
   * one load sends it down the slow path, which asks the stand-in: the hot path pays nothing.
   */
  retire(): void {
    if (this.standIn !== null) return;
    this.guard.retire();
    this.guard.lock();
    const word = Atomics.load(this.cells, this.stateCell);
    const trips = Atomics.load(this.cells, this.tripsCell);
    const seed = { word, generation: this.generationOf(word), openUntil: this.openUntil.read(), trips };
    this.guard.unlock();
    this.standIn = retiredCircuit(this.context, this.words, seed, this.slots, this.transitions);
    this.slots = new AdmissionSlots();
    this.cells = NOT_CLOSED;
    this.stateCell = this.closedCell = 0;
  }

  /** @internal The registry's hook, called whenever this thread's last admission in flight completes. */
  setIdleCallback(callback: (() => void) | null): void {
    this.idleCallback = callback;
  }

  /**
   * Open: reject until the deadline, then one thread's compareExchange makes the circuit half-open,
   * that attempt being its first probe (BREAKER.md 8). Half-open: a compareExchange takes a probe
   * while `taken < halfOpenProbeCount` (BREAKER.md 9), so the budget holds across every thread; a
   * full round whose probes were abandoned is started again (`retakeProbes`). Each take stores its
   * time before its exchange (slot-cells.ts `ProbeStamp`).
   */
  private admitWhileNotClosed(first: number): number {
    if (this.standIn !== null) return this.standIn.tryAdmit();
    const cells = this.cells;
    const words = this.words;
    let word = first;
    for (;;) {
      const state = stateOf(word);
      if (state === CLOSED) return this.slots.issue(this.generationOf(word));
      if (this.slots.inFlight >= MAX_ADMISSIONS_IN_FLIGHT) return AdmitRejection.Saturated;
      if (state === HALF_OPEN) {
        if (words.taken(word) >= this.options.halfOpenProbeCount) {
          if (!this.probesAbandoned()) return AdmitRejection.ProbesFull;
          const ticket = this.retakeProbes(word);
          if (ticket >= 0) return ticket;
          word = Atomics.load(cells, this.stateCell);
          continue;
        }
        this.readClock();
        this.probeTaken.mark(this.time[0]!);
        const seen = Atomics.compareExchange(cells, this.stateCell, word, word + words.takenOne);
        if (seen === word) return this.slots.issue(this.generationOf(word));
        word = seen;
        continue;
      }
      const rejection = this.openRejection(word);
      if (rejection === AdmitRejection.Open) return rejection;
      if (rejection === 0) {
        const halfOpen = words.word(HALF_OPEN, words.nextGeneration(word), 1, 0);
        this.probeTaken.mark(this.time[0]!);
        const seen = Atomics.compareExchange(cells, this.stateCell, word, halfOpen);
        if (seen === word) {
          const generation = this.publishGeneration(halfOpen);
          // The probe is taken before listeners run, so a re-entrant listener cannot take its slot.
          const ticket = this.slots.issue(generation);
          this.transitions.emit('open', 'half_open', generation);
          return ticket;
        }
      }
      word = Atomics.load(cells, this.stateCell);
    }
  }

  /** For a full half-open round: whether its latest probe was taken `probeTimeout` or more ago. */
  private probesAbandoned(): boolean {
    this.readClock();
    return this.probeTaken.isStale(this.time[0]!, this.probeTimeout);
  }

  /**
   * BREAKER.md 12 across threads: a thread ended while it held a probe (`worker.terminate()`, a
   * crash) never completes it, and its round would stay full for good. Once a full round's latest
   * probe was taken `probeTimeout` ago, every probe in flight is that old: inside the guard (only
   * its holder ends a round, so the full `word` cannot change but by another retake), a new round
   * of a new generation starts with the successes counted so far and this attempt as its probe.
   * The old round's probes are then stale (BREAKER.md 11). No transition: the state stays
   * half-open. Returns the probe's ticket, or -1 when the word changed first.
   */
  private retakeProbes(word: number): number {
    const words = this.words;
    const successes = words.successes(word);
    const round = words.word(HALF_OPEN, words.nextGeneration(word), successes + 1, successes);
    let generation: number;
    this.guard.lock();
    try {
      this.probeTaken.mark(this.time[0]!);
      if (Atomics.compareExchange(this.cells, this.stateCell, word, round) !== word) return -1;
      generation = this.publishGeneration(round);
    } finally {
      this.guard.unlock();
    }
    return this.slots.issue(generation);
  }

  /**
   * For an open `word`: `AdmitRejection.Open` (with `retryAfterMs`, BREAKER.md 13) before the
   * deadline, 0 once it has passed, or `RETRY` when the word changed while the deadline was read
   * (the deadline is written before the word says open, so an unchanged word vouches for it).
   */
  private openRejection(word: number): number {
    const openUntil = this.openUntil.read();
    if (Atomics.load(this.cells, this.stateCell) !== word) return RETRY;
    this.readClock();
    const now = this.time[0]!;
    if (now >= openUntil) return 0;
    this.retryAfterMs = Math.max(1, Math.ceil(openUntil - now));
    return AdmitRejection.Open;
  }

  /**
   * Inside the circuit's guard: an outcome of the current generation (an earlier one changes
   * nothing, BREAKER.md 11). Closed: record it, and a failure runs the trip test (BREAKER.md 1-3,
   * 6). Half-open, a probe's end (BREAKER.md 10): success counts toward closing, failure reopens,
   * none frees its slot. Transitions are heard after the guard is let go. A success or failure reads
   * the state word only here, so that recording it costs one guarded section and no more; the
   * guard's holder appends the closed successes that skipped it first (circuit-guard.ts `lock`).
   */
  private completeGuarded(generation: number, outcome: CircuitOutcome): void {
    this.readClock();
    let from: CircuitState = 'closed';
    let next = -1;
    let nextGeneration = -1;
    let closedAfter: number | undefined;
    this.guard.lock();
    try {
      // Inside the guard the closed generation cell is exact (only the guard's holder leaves or
      // enters closed), so a closed outcome reads neither the state word nor the generation.
      if (Atomics.load(this.cells, this.closedCell) === generation) {
        next = this.recordWhileClosed(outcome, -1);
        if (next < 0) closedAfter = generation;
      } else {
        const word = Atomics.load(this.cells, this.stateCell);
        if (this.generationOf(word) !== generation) return;
        if (stateOf(word) === CLOSED) {
          // Closed while the cell says -1: a thread stopped in the guard after its exchange to
          // closed and before the cell's store, or after clearing the cell for a trip and before
          // its exchange. Written now, so that closed admissions are one load again.
          this.enterClosed(word, generation);
          next = this.recordWhileClosed(outcome, word);
        } else if (stateOf(word) === HALF_OPEN) {
          this.advanceCircuitTime();
          from = 'half_open';
          next = this.endProbe(word, outcome);
        }
      }
      if (next >= 0) {
        nextGeneration = this.publishGeneration(next);
        if (stateOf(next) === CLOSED) this.enterClosed(next, nextGeneration);
      }
    } finally {
      this.guard.unlock(closedAfter);
    }
    if (next >= 0) this.transitions.emit(from, stateName(next), nextGeneration);
  }

  /**
   * Inside the guard, closed (`word`, or -1 to read it only if needed): records the outcome, and a
   * failure runs the trip test (BREAKER.md 1-3, 6). Returns the open word after a trip, else -1.
   */
  private recordWhileClosed(outcome: CircuitOutcome, word: number): number {
    this.advanceCircuitTime();
    const failed = outcome === CircuitOutcome.Failure;
    const history = this.history;
    history.record(failed);
    const { minimumFailureCount, failureRateThreshold } = this.options;
    if (!failed || !shouldTrip(history.failures, history.total, minimumFailureCount, failureRateThreshold))
      return -1;
    // Only the guard's holder changes a closed word, so this exchange cannot fail.
    return this.openFrom(word >= 0 ? word : Atomics.load(this.cells, this.stateCell));
  }

  /**
   * Inside the guard, after this thread's exchange to the closed `word`: admissions may now read
   * its generation from the closed generation cell. Undone if the word moved on meanwhile (a
   * thread that took the guard from this one, stopped for `probeTimeout`, may have tripped it), so
   * the cell says closed only at a generation the word has been closed at.
   */
  private enterClosed(word: number, generation: number): void {
    const cells = this.cells;
    if (Atomics.compareExchange(cells, this.closedCell, -1, generation) !== -1) return;
    if (Atomics.load(cells, this.stateCell) !== word)
      Atomics.compareExchange(cells, this.closedCell, generation, -1);
  }

  /**
   * Inside the guard, for a half-open `first` word of the probe's generation: exchanges the word in
   * a loop, because other threads may take probes meanwhile (only the guard's holder ends a round).
   * Returns the new word when the round ended (closed or open again), else -1.
   */
  private endProbe(first: number, outcome: CircuitOutcome): number {
    const words = this.words;
    for (let word = first; ; word = Atomics.load(this.cells, this.stateCell)) {
      if (outcome === CircuitOutcome.Failure) {
        const open = this.openFrom(word);
        if (open >= 0) return open;
      } else if (
        outcome === CircuitOutcome.Success &&
        words.successes(word) + 1 >= this.options.halfOpenProbeCount
      ) {
        // Entering closed forgets the history and the trip count (BREAKER.md 5, 18).
        this.history.clear();
        const closed = words.word(CLOSED, words.nextGeneration(word));
        if (Atomics.compareExchange(this.cells, this.stateCell, word, closed) === word) {
          Atomics.store(this.cells, this.tripsCell, 0);
          return closed;
        }
      } else {
        const next = outcome === CircuitOutcome.Success ? word + words.successOne : word - words.takenOne;
        if (Atomics.compareExchange(this.cells, this.stateCell, word, next) === word) return -1;
      }
    }
  }

  /**
   * Inside the guard: writes the deadline (the delay may grow per consecutive trip, BREAKER.md 7,
   * 18), then exchanges `word` for open. Returns the open word, or -1 when the word changed first
   * (the caller retries).
   */
  private openFrom(word: number): number {
    // Before the exchange, so that no admission reads a closed generation once the word is open.
    if (stateOf(word) === CLOSED) Atomics.store(this.cells, this.closedCell, -1);
    const trips = Atomics.load(this.cells, this.tripsCell) + 1;
    this.openUntil.write(this.circuitTime[0]! + this.pendingDelay(trips));
    const open = this.words.word(OPEN, this.words.nextGeneration(word));
    if (Atomics.compareExchange(this.cells, this.stateCell, word, open) !== word) return -1;
    Atomics.store(this.cells, this.tripsCell, trips);
    this.delayDrawn = Number.NaN;
    return open;
  }

  /** The open delay of this trip, drawn once however often the exchange is retried. */
  private delayDrawn = Number.NaN;
  private pendingDelay(trips: number): number {
    if (Number.isNaN(this.delayDrawn)) this.delayDrawn = openDelay(trips, this.options, this.random);
    return this.delayDrawn;
  }

  /** The whole generation of `word`, a state word read lately (state-word.ts `wholeGeneration`). */
  private generationOf(word: number): number {
    return this.words.wholeGeneration(word, Atomics.load(this.cells, this.generationCell));
  }

  /** After this thread's exchange to `word`: the slot's whole generation follows it; returns it. */
  private publishGeneration(word: number): number {
    const generation = this.generationOf(word);
    Atomics.store(this.cells, this.generationCell, generation);
    return generation;
  }

  /** Inside the guard: the circuit's clock joins this thread's reading, never going back (BREAKER.md 4). */
  private advanceCircuitTime(): void {
    if (this.time[0]! > this.circuitTime[0]!) this.circuitTime[0] = this.time[0]!;
  }

  /** Advances this thread's `time[0]` to the clock's reading unless that is earlier (or NaN). */
  private readClock(): void {
    const now = this.clock.now();
    if (now > this.time[0]!) this.time[0] = now;
  }
}

/** A retired handle's cells: its closed generation cell (0) says not closed. */
const NOT_CLOSED = Int32Array.of(-1);

/** `openRejection`'s answer when the word changed under it: read the word again. */
const RETRY = 1;
