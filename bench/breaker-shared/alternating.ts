// Issue 15's target, measured like for like: closed admit+success on a shared circuit against the
// single-thread CircuitBreaker, uncontended (one thread, the caller's), rounds alternating between
// the two, on CPU time (process.cpuUsage: call it with no other thread of the process running), so
// that a loaded machine slows both alike. Used by the suite `breaker-shared` and by the script
// uncontended.ts.
import {
  CircuitBreaker,
  type CircuitBreakerEnvironment,
  CircuitOutcome,
  SharedCircuitRegistry,
} from '../../src/breaker/index.js';

export interface AlternatingFigures {
  /** Medians over the rounds, CPU ns per admit+success. */
  readonly singleNs: number;
  readonly sharedNs: number;
  /** Per-round shared ÷ single, sorted. */
  readonly ratios: readonly number[];
}

/** `stepMs`: how far the clock moves per read (0.001: 1 µs, as the suite's workers; 0: fixed). */
export function measureAlternating(rounds: number, operations: number, stepMs: number): AlternatingFigures {
  const clock = (): CircuitBreakerEnvironment => {
    const cell = new Float64Array(1);
    return { now: () => (cell[0]! += stepMs) };
  };
  const single = new CircuitBreaker({}, clock());
  const shared = SharedCircuitRegistry.attach(new SharedCircuitRegistry().buffer, clock()).circuit(
    'redis:6379',
  );
  // One loop per contender, so that each call site stays monomorphic.
  const passSingle = (n: number): void => {
    for (let i = 0; i < n; i++) single.complete(single.tryAdmit(), CircuitOutcome.Success);
  };
  const passShared = (n: number): void => {
    for (let i = 0; i < n; i++) shared.complete(shared.tryAdmit(), CircuitOutcome.Success);
  };
  const cpuNs = (pass: (n: number) => void): number => {
    const start = process.cpuUsage();
    pass(operations);
    const used = process.cpuUsage(start);
    return ((used.user + used.system) * 1000) / operations;
  };
  for (let i = 0; i < 20; i++) {
    passSingle(50_000);
    passShared(50_000);
  }
  const singles: number[] = [];
  const shareds: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so that neither always follows the other.
    const singleFirst = round % 2 === 0;
    const before = singleFirst ? cpuNs(passSingle) : 0;
    const sharedNs = cpuNs(passShared);
    const singleNs = singleFirst ? before : cpuNs(passSingle);
    singles.push(singleNs);
    shareds.push(sharedNs);
    ratios.push(sharedNs / singleNs);
  }
  if (shared.state !== 'closed' || single.state !== 'closed') throw new Error('a circuit left closed');
  return { singleNs: median(singles), sharedNs: median(shareds), ratios: ratios.sort((a, b) => a - b) };
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
