// A worker thread of shared-guard-terminated-holder.test.ts: attaches to the registry it is sent,
// records a failure on the endpoint that trips its circuit, and stops for good inside the guard:
// its random source (drawn for the open delay's jitter, inside the guard, before the exchange to
// open) says so on the control cell and blocks. The test then terminates it there.
import { workerData } from 'node:worker_threads';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';

export interface GuardHolderData {
  buffer: SharedArrayBuffer;
  endpoint: string;
  /** `[0]` set to 1 once the worker is inside the guard. */
  control: SharedArrayBuffer;
}

const data = workerData as GuardHolderData;
const control = new Int32Array(data.control);
const circuit = SharedCircuitRegistry.attach(data.buffer, {
  random: () => {
    Atomics.store(control, 0, 1);
    Atomics.notify(control, 0);
    // Stopped here, holding the guard, until terminated (a test's worker, not the circuit's path).
    Atomics.wait(control, 1, 0);
    return 0;
  },
}).circuit(data.endpoint);
circuit.complete(circuit.tryAdmit(), CircuitOutcome.Failure);
