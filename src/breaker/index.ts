// `respire/breaker`: the standalone endpoint circuit breaker, its options, states and registry, and
// the registry of circuits shared across worker threads.

export { RespireConfigurationError, RespireError } from '../errors.js';
export {
  AdmitRejection,
  type CircuitAcquireResult,
  type CircuitAdmission,
  CircuitOutcome,
  type CircuitRejection,
} from './admission.js';
export { MAX_ADMISSIONS_IN_FLIGHT } from './admission-slots.js';
export { CircuitBreaker, type CircuitSnapshot, type TransitionListener } from './circuit-breaker.js';
export type { CircuitState } from './circuit-state.js';
export type { EndpointCircuit, EndpointCircuitLease, EndpointCircuitSource } from './endpoint-circuit.js';
export type { CircuitBreakerEnvironment, MonotonicClock, RandomSource } from './environment.js';
export { openDelay } from './open-delay.js';
export {
  DEFAULT_CIRCUIT_BREAKER_OPTIONS,
  type ResolvedCircuitBreakerOptions,
  type RespireCircuitBreakerOptions,
  validateCircuitBreakerOptions,
} from './options.js';
export {
  type CircuitBreakerLease,
  CircuitBreakerRegistry,
  type CircuitBreakerRegistryEnvironment,
  type EndpointTransitionListener,
  MAX_IDLE_HISTORIES,
} from './registry.js';
export {
  DEFAULT_MAX_ENDPOINTS,
  MAX_SHARED_ENDPOINTS,
  type SharedCircuitLease,
  SharedCircuitRegistry,
  type SharedCircuitRegistryOptions,
} from './shared/registry.js';
export { SharedCircuit, type SharedTransitionListener } from './shared/shared-circuit.js';
export { MAX_SHARED_PROBES } from './shared/state-word.js';
export { shouldTrip } from './trip-rule.js';
