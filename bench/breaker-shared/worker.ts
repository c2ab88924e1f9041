// A worker thread of the `breaker-shared` suite: admits and completes with success on its circuit
// (a CircuitBreaker of its own, or a shared circuit of the registry it is sent) for `rounds` timed
// rounds, each started at a barrier with the other workers, and posts its ns per operation.
import { parentPort, workerData } from 'node:worker_threads';
import {
  CircuitBreaker,
  type CircuitBreakerEnvironment,
  CircuitOutcome,
  SharedCircuitRegistry,
} from '../../src/breaker/index.js';

export interface AdmitWorkerData {
  /** The registry's buffer, or null for a CircuitBreaker of this thread's own. */
  buffer: SharedArrayBuffer | null;
  endpoint: string;
  /** One Int32 per round: the barrier count of the workers that reached it. */
  barrier: SharedArrayBuffer;
  workers: number;
  operations: number;
  warmupMs: number;
  rounds: number;
}

/**
 * A clock costing next to nothing, +1 µs per read, as in the `breaker` suite, so that the circuit's
 * own work is what is measured (its time in a Float64Array cell: no boxed double per read).
 */
function counterClock(): CircuitBreakerEnvironment {
  const cell = new Float64Array(1);
  return { now: () => (cell[0]! += 0.001) };
}

const data = workerData as AdmitWorkerData;
const environment = counterClock();
const circuit =
  data.buffer === null
    ? new CircuitBreaker({}, environment)
    : SharedCircuitRegistry.attach(data.buffer, environment).circuit(data.endpoint);

function pass(operations: number): void {
  for (let i = 0; i < operations; i++) circuit.complete(circuit.tryAdmit(), CircuitOutcome.Success);
}

/** Every worker waits here until all have arrived (a bench barrier, not on any command path). */
function barrier(cells: Int32Array, round: number): void {
  if (Atomics.add(cells, round, 1) + 1 === data.workers) Atomics.notify(cells, round);
  for (let seen = Atomics.load(cells, round); seen < data.workers; seen = Atomics.load(cells, round))
    Atomics.wait(cells, round, seen, 10);
}

const started = performance.now();
while (performance.now() - started < data.warmupMs) pass(1_000);
const cells = new Int32Array(data.barrier);
const nsPerOperation: number[] = [];
for (let round = 0; round < data.rounds; round++) {
  barrier(cells, round);
  const start = performance.now();
  pass(data.operations);
  nsPerOperation.push(((performance.now() - start) * 1e6) / data.operations);
}
if (circuit.state !== 'closed' || circuit.admissionsInFlight !== 0)
  throw new Error('breaker-shared: the circuit left closed');
parentPort!.postMessage(nsPerOperation);
