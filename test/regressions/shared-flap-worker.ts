// A worker thread of shared-circuit-flap-workers.test.ts: one client on the SharedCircuitRegistry
// whose buffer it is sent, with a recording meter. On `go` it keeps `concurrency` GETs going until
// told to stop, logging every transition its circuit's listeners heard (with the generation a shared
// circuit passes) and the transitions its meter counted, then reports.
import { parentPort, workerData } from 'node:worker_threads';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireClient, RespireMetricGroups } from '../../src/index.js';

export interface FlapWorkerData {
  port: number;
  buffer: SharedArrayBuffer;
  concurrency: number;
}

export interface FlapWorkerReport {
  /** `[from, to, generation]` for each transition this thread's circuit listeners heard. */
  heard: [string, string, number][];
  /** The transitions this thread's meter counted, as `from>to`. */
  metered: string[];
  replies: number;
  failures: number;
  rejections: number;
}

const data = workerData as FlapWorkerData;
/** The transitions the client's meter counted (the worker cannot load the vitest-bound kit). */
const transitions: string[] = [];
const meter = {
  createCounter(name: string) {
    return {
      add(_value: number, attributes?: Record<string, unknown>) {
        if (name === 'respire.circuit.transitions')
          transitions.push(
            `${attributes?.['respire.circuit.state.from']}>${attributes?.['respire.circuit.state.to']}`,
          );
      },
    };
  },
};
const client = await RespireClient.connect({
  endpoints: [`127.0.0.1:${data.port}`],
  commandTimeout: 150,
  connectTimeout: 150,
  acquireTimeout: 150,
  reconnect: () => 10,
  meter,
  metricGroups: [RespireMetricGroups.Resiliency],
  circuitBreaker: { shared: SharedCircuitRegistry.attach(data.buffer) },
});
const report: FlapWorkerReport = { heard: [], metered: [], replies: 0, failures: 0, rejections: 0 };
client.circuit!.onTransition((from, to, generation?: number) => {
  report.heard.push([from, to, generation ?? -1]);
});
let stopping = false;
async function loop(): Promise<void> {
  while (!stopping) {
    try {
      await client.get('flap:key');
      report.replies++;
    } catch (error) {
      if ((error as Error).name === 'RespireCircuitOpenError') {
        report.rejections++;
        // Rejected at once: let the event loop turn (timers, sockets) before the next try.
        await new Promise((resolve) => setTimeout(resolve, 1));
      } else report.failures++;
    }
  }
}
parentPort!.postMessage('ready');
parentPort!.on('message', async (message: string) => {
  if (message === 'go') {
    const loops = Array.from({ length: data.concurrency }, () => loop());
    parentPort!.once('message', async () => {
      stopping = true;
      await Promise.all(loops);
      report.metered.push(...transitions);
      client.destroy();
      parentPort!.postMessage(report);
    });
  }
});
