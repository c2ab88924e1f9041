// A worker thread of the `breaker-shared` outage case: a service thread with one client (its own
// circuit, or the shared registry's) that keeps `concurrency` GETs in flight for `durationMs` once
// told to start, while Redis answers too late, and reports how its commands ended.
import { parentPort, workerData } from 'node:worker_threads';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireCircuitOpenError, RespireClient } from '../../src/index.js';

export interface OutageWorkerData {
  port: number;
  /** The registry's buffer, or null for a circuit of the client's own with `circuit`. */
  buffer: SharedArrayBuffer | null;
  circuit: { minimumFailureCount: number; openDuration: number };
  concurrency: number;
  durationMs: number;
}

export interface OutageWorkerReport {
  failures: number;
  rejections: number;
}

const data = workerData as OutageWorkerData;
const client = await RespireClient.connect({
  endpoints: [`127.0.0.1:${data.port}`],
  commandTimeout: 300,
  connectTimeout: 3_000,
  acquireTimeout: 3_000,
  circuitBreaker: data.buffer === null ? data.circuit : { shared: SharedCircuitRegistry.attach(data.buffer) },
});
parentPort!.postMessage('ready');
parentPort!.once('message', async () => {
  const report: OutageWorkerReport = { failures: 0, rejections: 0 };
  const until = performance.now() + data.durationMs;
  const lane = async () => {
    while (performance.now() < until) {
      try {
        await client.get('breaker-shared-outage');
      } catch (error) {
        if (!(error instanceof RespireCircuitOpenError)) report.failures++;
        else {
          report.rejections++;
          // A rejected service backs off a little before trying again, as a spooling one would.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: data.concurrency }, lane));
  client.destroy();
  parentPort!.postMessage(report);
});
