// What a client's gate asks of an endpoint's circuit and of the registry it leases circuits from:
// `CircuitBreaker` with `CircuitBreakerRegistry` on one thread, `SharedCircuit` with
// `SharedCircuitRegistry` across worker threads (API.md "Circuits shared across worker threads").
import type { CircuitAcquireResult, CircuitOutcome } from './admission.js';
import type { CircuitSnapshot, TransitionListener } from './circuit-breaker.js';
import type { CircuitState } from './circuit-state.js';

/** The admission API of one endpoint's circuit. */
export interface EndpointCircuit {
  /** The committed state; an open circuit past its deadline stays `open` until an admission attempt. */
  readonly state: CircuitState;
  /** The `retryAfter` of the latest `AdmitRejection.Open` this thread got, in milliseconds. */
  readonly lastRetryAfter: number;
  /** Admissions this thread took and has not completed. */
  readonly admissionsInFlight: number;
  /** An admission object, or a rejection with `retryAfter` (as `CircuitBreaker.tryAcquire`). */
  tryAcquire(): CircuitAcquireResult;
  /** A ticket (0 or more) for `complete`, or a negative `AdmitRejection` code. */
  tryAdmit(): number;
  /** What `tryAdmit()` would say now, taking nothing: 0 or a negative `AdmitRejection` code. */
  check(): number;
  /** Whether a ticket in flight was admitted by the current state. */
  isCurrent(ticket: number): boolean;
  /** Ends an admission with its outcome; false, changing nothing, for a ticket not in flight. */
  complete(ticket: number, outcome: CircuitOutcome): boolean;
  /** Subscribes to state changes (a shared circuit's: those this thread makes); returns the unsubscriber. */
  onTransition(listener: TransitionListener): () => void;
  /** The current counts, after evicting expired outcomes. */
  snapshot(): CircuitSnapshot;
}

/** A connection's hold on its endpoint's circuit. */
export interface EndpointCircuitLease {
  /** The endpoint's circuit, shared by every lease of the same key. */
  readonly breaker: EndpointCircuit;
  /** Ends the hold; later calls do nothing. */
  release(): void;
}

/** Where a client's gates lease their circuits, one per endpoint key. */
export interface EndpointCircuitSource {
  /** Holds `endpoint`'s circuit until the lease is released. */
  acquire(endpoint: string): EndpointCircuitLease;
}
