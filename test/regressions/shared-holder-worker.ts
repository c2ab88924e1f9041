// A worker thread of shared-terminated-holds.test.ts: attaches to the registry it is sent, holds
// the endpoint it is told to (circuit(), held until detach) with one admission completed, and says
// 'held' (or the error that refused it). Told 'spin', it runs synchronously for the given ms (a
// live thread busy in a long run, its event loop blocked), then says 'spun'.
import { parentPort, workerData } from 'node:worker_threads';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';

export interface HolderData {
  buffer: SharedArrayBuffer;
  endpoint: string;
}

export type HolderReply = { held: true } | { held: false; error: string } | { spun: true };

const data = workerData as HolderData;
try {
  const circuit = SharedCircuitRegistry.attach(data.buffer).circuit(data.endpoint);
  circuit.complete(circuit.tryAdmit(), CircuitOutcome.Success);
  parentPort!.postMessage({ held: true } satisfies HolderReply);
} catch (error) {
  parentPort!.postMessage({ held: false, error: String(error) } satisfies HolderReply);
}
// The port's listener keeps the thread alive until it is terminated.
parentPort!.on('message', (message: { spin: number }) => {
  const until = performance.now() + message.spin;
  while (performance.now() < until);
  parentPort!.postMessage({ spun: true } satisfies HolderReply);
});
