// A worker thread of shared-circuit-workers.test.ts: one client whose circuit is either its own or
// taken from the SharedCircuitRegistry whose buffer it is sent. Connects, says so, and on `go`
// sends GETs one at a time until its circuit has rejected `rejections` of them, then reports.
import { parentPort, workerData } from 'node:worker_threads';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireCircuitOpenError, RespireClient } from '../../src/index.js';

export interface ClientWorkerData {
  port: number;
  /** The registry's buffer, or null for a circuit of the client's own with `circuit`. */
  buffer: SharedArrayBuffer | null;
  circuit: { minimumFailureCount: number; openDuration: number; failureRateThreshold: number };
  /** Stop after this many rejections, or after `maxAttempts` sends in all. */
  rejections: number;
  maxAttempts: number;
}

export interface ClientWorkerReport {
  replies: number;
  /** Commands that failed with anything but a circuit rejection. */
  failures: number;
  rejections: number;
}

const data = workerData as ClientWorkerData;
const client = await RespireClient.connect({
  endpoints: [`127.0.0.1:${data.port}`],
  commandTimeout: 300,
  connectTimeout: 300,
  acquireTimeout: 300,
  reconnect: () => 20,
  circuitBreaker:
    data.buffer === null
      ? { ...data.circuit, samplingWindow: 60_000 }
      : { shared: SharedCircuitRegistry.attach(data.buffer) },
});
parentPort!.postMessage('ready');
parentPort!.once('message', async () => {
  const report: ClientWorkerReport = { replies: 0, failures: 0, rejections: 0 };
  for (let i = 0; i < data.maxAttempts && report.rejections < data.rejections; i++) {
    try {
      await client.get('shared-circuit-key');
      report.replies++;
    } catch (error) {
      if (error instanceof RespireCircuitOpenError) report.rejections++;
      else report.failures++;
    }
  }
  client.destroy();
  parentPort!.postMessage(report);
});
