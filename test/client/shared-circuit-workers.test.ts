// Two clients in two worker threads against a real redis-server behind the fault proxy (issue 15):
// with `circuitBreaker: { shared }` the process stops sending to the black-holed endpoint after
// `minimumFailureCount` failures in total, not per worker; with a circuit per client each worker
// pays its own. A CommandTap in front of the proxy counts the user commands that reached it. (A
// command past its deadline makes its connection unresponsive, so after each worker's first
// timeout the failures are reconnects into the black hole: selection failures, nothing sent.)
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { CommandTap } from '../kit/command-tap.js';
import { type CompiledEntry, compileEntry } from '../kit/compile-entry.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import type { ClientWorkerData, ClientWorkerReport } from './shared-circuit-worker.js';

const server = useRedisServer();
const CIRCUIT = { minimumFailureCount: 4, openDuration: 60_000, failureRateThreshold: 0.5 };
const WORKERS = 2;
let compiled: CompiledEntry;

beforeAll(async () => {
  compiled = await compileEntry('test/client/shared-circuit-worker.ts');
}, 60_000);
afterAll(() => compiled?.remove());

function message<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

/** Both workers connect, the proxy black-holes Redis, both send until rejected; what reached the proxy. */
async function outage(buffer: SharedArrayBuffer | null) {
  const proxy: FaultProxy = await startFaultProxy({ target: { host: server.host, port: server.port } });
  const tap = await CommandTap.start({ host: proxy.host, port: proxy.port });
  const workers: Worker[] = [];
  try {
    const data: ClientWorkerData = {
      port: tap.port,
      buffer,
      circuit: CIRCUIT,
      rejections: 5,
      maxAttempts: 40,
    };
    for (let i = 0; i < WORKERS; i++) workers.push(new Worker(compiled.file, { workerData: data }));
    await Promise.all(workers.map((worker) => message(worker)));
    await proxy.setMode('blackhole');
    const reports = workers.map((worker) => message<ClientWorkerReport>(worker));
    for (const worker of workers) worker.postMessage('go');
    const done = await Promise.all(reports);
    return {
      endpoint: `127.0.0.1:${tap.port}`,
      reached: tap.arrivals.length,
      failures: done.reduce((sum, report) => sum + report.failures, 0),
      rejected: done.map((report) => report.rejections),
      replies: done.reduce((sum, report) => sum + report.replies, 0),
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
    await tap.stop();
    await proxy.stop();
  }
}

it('with a shared registry the process stops after minimumFailureCount failures in total', async () => {
  const registry = new SharedCircuitRegistry({ ...CIRCUIT, samplingWindow: 60_000, maxEndpoints: 4 });
  const shared = await outage(registry.buffer);
  // Each worker has one command in flight at most: a command admitted before the trip may still
  // fail after it (a stale outcome), so at most one per other worker beyond the minimum.
  expect(shared.replies).toBe(0);
  expect(shared.failures).toBeGreaterThanOrEqual(CIRCUIT.minimumFailureCount);
  expect(shared.failures).toBeLessThanOrEqual(CIRCUIT.minimumFailureCount + WORKERS - 1);
  expect(shared.reached).toBeLessThanOrEqual(shared.failures);
  expect(shared.rejected).toEqual([5, 5]);
  // The endpoint's one circuit, as any thread sees it: open, from the failures of both workers.
  const view = SharedCircuitRegistry.attach(registry.buffer);
  const circuit = view.circuit(shared.endpoint);
  expect(circuit.state).toBe('open');
  expect(circuit.snapshot().failures).toBeGreaterThanOrEqual(CIRCUIT.minimumFailureCount);
  view.detach();
});

it('with a circuit per client each worker pays minimumFailureCount failures', async () => {
  const separate = await outage(null);
  expect(separate.failures).toBeGreaterThanOrEqual(WORKERS * CIRCUIT.minimumFailureCount);
  expect(separate.rejected).toEqual([5, 5]);
});
