// A worker of shared-clock-origin.test.ts: its wall clock is taken to have been stepped by `shift`
// ms before it started (NTP, a resumed VM), which moves `performance.timeOrigin` and nothing else.
// It attaches to the tripped registry with the default clock and reports what its admission says.
import { parentPort, workerData } from 'node:worker_threads';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';

const { buffer, shift } = workerData as { buffer: SharedArrayBuffer; shift: number };
Object.defineProperty(performance, 'timeOrigin', { value: performance.timeOrigin + shift });
const circuit = SharedCircuitRegistry.attach(buffer).circuit('redis:6379');
const admitted = circuit.tryAdmit() >= 0;
parentPort?.postMessage({ admitted, state: circuit.state, retryAfter: circuit.lastRetryAfter });
