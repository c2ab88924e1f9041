// The circuit's state as a discriminated union: each state carries only its own data (the open
// deadline, the half-open probe counts) and the generation that tags its admissions (BREAKER.md 11).

/** The three states of seed 000, spelled as the `respire.circuit.state.*` metric tags. */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** Commands flow; outcomes enter the history. */
export class ClosedState {
  readonly name = 'closed' as const;
  constructor(readonly generation: number) {}
}

/** Everything is rejected until `openUntil` (BREAKER.md 7); the first admission after it probes. */
export class OpenState {
  readonly name = 'open' as const;
  constructor(
    readonly generation: number,
    readonly openUntil: number,
  ) {}
}

/** Up to `halfOpenProbeCount` probes are admitted while `probesInFlight + probeSuccesses` allows. */
export class HalfOpenState {
  readonly name = 'half_open' as const;
  probesInFlight = 0;
  probeSuccesses = 0;
  constructor(readonly generation: number) {}
}

export type CircuitStateRecord = ClosedState | OpenState | HalfOpenState;

/** The generation after `generation`; generations only need to differ from recent ones. */
export function nextGeneration(generation: number): number {
  return (generation + 1) & 0x7fffffff;
}
