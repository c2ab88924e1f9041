// What a client's gate asks of an endpoint's circuit and of the registry it leases circuits from:
// `CircuitBreaker` with `CircuitBreakerRegistry` on one thread, `SharedCircuit` with
// `SharedCircuitRegistry` across worker threads (API.md "Circuits shared across worker threads").
import type { CircuitAcquireResult, CircuitOutcome } from './admission.js';
import type { CircuitSnapshot, TransitionListener } from './circuit-breaker.js';
import type { CircuitState } from './circuit-state.js';

/** The admission API of one endpoint's circuit. */
export interface EndpointCircuit {
  readonly state: CircuitState;
  readonly lastRetryAfter: number;
  /** Admissions this thread took and has not completed. */
  readonly admissionsInFlight: number;
  tryAcquire(): CircuitAcquireResult;
  tryAdmit(): number;
  check(): number;
  isCurrent(ticket: number): boolean;
  complete(ticket: number, outcome: CircuitOutcome): boolean;
  onTransition(listener: TransitionListener): () => void;
  snapshot(): CircuitSnapshot;
}

/** A connection's hold on its endpoint's circuit. */
export interface EndpointCircuitLease {
  readonly breaker: EndpointCircuit;
  /** Ends the hold; later calls do nothing. */
  release(): void;
}

/** Where a client's gates lease their circuits, one per endpoint key. */
export interface EndpointCircuitSource {
  acquire(endpoint: string): EndpointCircuitLease;
}
