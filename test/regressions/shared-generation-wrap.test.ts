// A shared circuit's state word keeps only the low bits of its generation (13 at 255 probes), and
// tickets were compared on those bits alone: a command admitted while closed and still in flight
// 4,096 trips later (a blocking command; a tiny openDuration) matched the current half-open round,
// and its failure reopened the circuit, its cancellation freed a probe slot it never took (the
// count then underflowed into the generation bits). Tickets now carry a 31-bit generation, the word's
// bits completed from the slot's recent whole generation (BREAKER.md 11: an old generation's
// completion changes nothing).
import { describe, expect, it } from 'vitest';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { fakeClock } from '../../src/breaker/testing/index.js';

const OPTIONS = {
  minimumFailureCount: 1,
  halfOpenProbeCount: 255,
  openDuration: 1,
  openDurationJitter: 0,
  openDurationMultiplier: 1,
};
/** Generations the state word tells apart at 255 probes; each reopening round takes two. */
const WORD_GENERATIONS = 2 ** 13;

function wrappedCircuit() {
  const clock = fakeClock();
  const circuit = new SharedCircuitRegistry(OPTIONS, clock).circuit('redis:6379');
  const stale = circuit.tryAdmit();
  circuit.complete(circuit.tryAdmit(), CircuitOutcome.Failure);
  expect(circuit.state).toBe('open');
  let probe = -1;
  for (let round = 1; round <= WORD_GENERATIONS / 2; round++) {
    clock.advance(1);
    probe = circuit.tryAdmit();
    expect(probe).toBeGreaterThanOrEqual(0);
    if (round < WORD_GENERATIONS / 2) circuit.complete(probe, CircuitOutcome.Failure);
  }
  // Half-open again, its generation's low bits the same as the stale ticket's.
  expect(circuit.state).toBe('half_open');
  expect(circuit.isCurrent(stale)).toBe(false);
  return { circuit, stale, probe };
}

describe('a shared circuit after its word generation wraps', () => {
  it('ignores the failure of a command admitted thousands of generations ago', () => {
    const { circuit, stale } = wrappedCircuit();
    expect(circuit.complete(stale, CircuitOutcome.Failure)).toBe(true);
    expect(circuit.state).toBe('half_open');
    expect(circuit.snapshot().probesInFlight).toBe(1);
  });

  it('keeps the probe count when that command is cancelled', () => {
    const { circuit, stale, probe } = wrappedCircuit();
    circuit.complete(stale, CircuitOutcome.None);
    expect(circuit.snapshot().probesInFlight).toBe(1);
    circuit.complete(probe, CircuitOutcome.None);
    const after = circuit.snapshot();
    expect(after.state).toBe('half_open');
    expect(after.probesInFlight).toBe(0);
    expect(after.probeSuccesses).toBe(0);
  });
});
