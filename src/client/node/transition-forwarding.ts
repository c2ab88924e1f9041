// Forwards a circuit's transitions to a client's telemetry once per transition in this thread.
// Clients of one thread on one SharedCircuitRegistry share the endpoint's circuit object; if each
// client's gate reported, `respire:circuit:transition` (one channel per thread) and a shared meter
// would count one transition as many (issue 15: metrics report each transition once). So the
// gates on one circuit take turns: the earliest still open reports, the others stay silent.
import type { CircuitState } from '../../breaker/circuit-state.js';

type Forward = (from: CircuitState, to: CircuitState) => void;

interface TransitionSource {
  onTransition(listener: Forward): () => void;
}

/** The forwarders of the gates on each circuit, earliest first. */
const forwarders = new WeakMap<TransitionSource, Forward[]>();

/** Subscribes `forward` to `circuit`'s transitions, reporting only while it is the earliest; returns the unsubscribe. */
export function forwardTransitionsOnce(circuit: TransitionSource, forward: Forward): () => void {
  let gates = forwarders.get(circuit);
  if (gates === undefined) {
    gates = [];
    forwarders.set(circuit, gates);
  }
  const list = gates;
  list.push(forward);
  const unsubscribe = circuit.onTransition((from, to) => {
    if (list[0] === forward) forward(from, to);
  });
  return () => {
    unsubscribe();
    const index = list.indexOf(forward);
    if (index >= 0) list.splice(index, 1);
  };
}
