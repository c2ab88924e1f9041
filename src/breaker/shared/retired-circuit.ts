// What a SharedCircuit handle answers from once its registry view let go of it (registry.ts
// `dropEntry`: every lease released, or `detach()`): a private single-thread `CircuitBreaker`,
// the stand-in. The slot may then be evicted and given to another endpoint (issue 15: two
// endpoints never share a slot), so the handle never reads or writes it again; like a circuit a
// `CircuitBreakerRegistry` let go of, it is its own object and harms nobody (a closed client's
// `client.circuit` reads it).

import type { AdmissionSlots } from '../admission-slots.js';
import { CircuitBreaker } from '../circuit-breaker.js';
import {
  type CircuitState,
  type CircuitStateRecord,
  ClosedState,
  HalfOpenState,
  nextGeneration,
  OpenState,
} from '../circuit-state.js';
import type { Notifier } from '../transition-notifier.js';
import type { SharedCircuitContext } from './circuit-context.js';
import { CLOSED, OPEN, type StateWordLayout, stateOf } from './state-word.js';

/** What the slot said when the handle was retired, read inside its guard. */
export interface RetiredSeed {
  readonly word: number;
  readonly generation: number;
  readonly openUntil: number;
  readonly trips: number;
}

/**
 * The stand-in, with the registry's options and the view's clock, random source and listener-error
 * reporter. It starts where the slot was: the same state, open deadline, trip count and (half-open)
 * probe successes, with no probe in flight (the probes in flight were other threads') and an empty
 * history (the outcomes are not carried over). Its generation follows the slot's, and it takes its
 * tickets from `slots`, the handle's table: a ticket the handle took from the shared circuit (none
 * is in flight at retirement; this is a guard) completes as a stale one, changing nothing
 * (BREAKER.md 11). Its transitions reach the handle's listeners (`transitions`), with generations.
 */
export function retiredCircuit(
  context: SharedCircuitContext,
  words: StateWordLayout,
  seed: RetiredSeed,
  slots: AdmissionSlots,
  transitions: Notifier<[CircuitState, CircuitState, number]>,
): CircuitBreaker {
  const { clock, random } = context;
  const standIn = new CircuitBreaker(context.options, {
    now: () => clock.now(),
    random: () => random.random(),
    reportListenerError: context.reportListenerError,
  });
  let generation = nextGeneration(seed.generation);
  const state = stateOf(seed.word);
  let record: CircuitStateRecord;
  if (state === CLOSED) record = new ClosedState(generation);
  else if (state === OPEN) record = new OpenState(generation, seed.openUntil);
  else {
    const halfOpen = new HalfOpenState(generation);
    halfOpen.probeSuccesses = words.successes(seed.word);
    record = halfOpen;
  }
  standIn.resume(record, seed.trips, slots);
  standIn.onTransition((from, to) => {
    generation = nextGeneration(generation);
    transitions.emit(from, to, generation);
  });
  return standIn;
}
