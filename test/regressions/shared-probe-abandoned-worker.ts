// A worker of shared-probe-abandoned.test.ts, on its own fake clock set to the time the test names.
// 'probe': takes the half-open probe of the tripped circuit and never completes it; 'guard': takes
// the circuit's guard (as a thread recording an outcome does) and never lets go; 'table': takes the
// endpoint table's lock (as a thread taking or letting go of a slot does) and never lets go. It
// reports, then stays alive holding it until the test terminates it, as a pool ends a worker
// mid-command. 'record': records one success on a clock that moves 1 s at each reading, and
// reports the circuit's counts once it could.
import { parentPort, workerData } from 'node:worker_threads';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { fakeClock } from '../../src/breaker/testing/index.js';

const { buffer, time, mode } = workerData as {
  buffer: SharedArrayBuffer;
  time: number;
  mode: 'probe' | 'guard' | 'record' | 'table';
};
const clock = fakeClock({ time });
const moving = {
  now: () => {
    clock.advance(1_000);
    return clock.time;
  },
};
const registry = SharedCircuitRegistry.attach(buffer, mode === 'record' ? moving : clock);
const circuit = registry.circuit('redis:6379');
if (mode === 'probe') {
  const ticket = circuit.tryAdmit();
  parentPort?.postMessage({ admitted: ticket >= 0, state: circuit.state });
} else if (mode === 'table') {
  // The table lock hold() and letGo() take, reached as the registry's own code reaches it.
  (registry as unknown as { table: { lock(): void } }).table.lock();
  parentPort?.postMessage({ admitted: true, state: circuit.state });
} else if (mode === 'guard') {
  // The guard a recorded outcome takes, reached as the circuit's own code reaches it.
  (circuit as unknown as { guard: { lock(): void } }).guard.lock();
  parentPort?.postMessage({ admitted: true, state: circuit.state });
} else {
  circuit.complete(circuit.tryAdmit(), CircuitOutcome.Success);
  parentPort?.postMessage(circuit.snapshot());
}
// Holds what it took: the thread ends only when terminated (a 'record' worker is terminated too).
setInterval(() => {}, 60_000);
