// Issue 15 break attempt (wt-break15): clients in three worker threads on one SharedCircuitRegistry,
// each with several GETs always in flight, against a real redis-server behind the fault proxy that
// flaps (black hole, then pass) under that load. Seed 000's rules across threads: every transition
// made by exactly one thread, heard once in the process (listeners and the meter of that thread
// only), chained closed -> open -> half_open -> {open, closed} with one generation each; the
// probe budget never exceeded in total (an observer view reads the shared counts all along); and
// once the endpoint is healthy the circuit closes and stays closed.
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { type CompiledEntry, compileEntry } from '../kit/compile-entry.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import type { FlapWorkerData, FlapWorkerReport } from './shared-flap-worker.js';

const server = useRedisServer();
const WORKERS = 3;
const CIRCUIT = {
  minimumFailureCount: 3,
  failureRateThreshold: 0.5,
  samplingWindow: 200,
  maximumSampleCount: 10,
  openDuration: 60,
  halfOpenProbeCount: 2,
};
const EDGES = new Set(['closed>open', 'open>half_open', 'half_open>open', 'half_open>closed']);
let compiled: CompiledEntry;

beforeAll(async () => {
  compiled = await compileEntry('test/regressions/shared-flap-worker.ts');
}, 60_000);
afterAll(() => compiled?.remove());

function message<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

it('keeps every rule while the endpoint flaps under load from three workers', async () => {
  const registry = new SharedCircuitRegistry({ ...CIRCUIT, maxEndpoints: 4 });
  const proxy = await startFaultProxy({ target: { host: server.host, port: server.port } });
  const workers: Worker[] = [];
  let observing = true;
  const overBudget: unknown[] = [];
  try {
    const data: FlapWorkerData = { port: proxy.port, buffer: registry.buffer, concurrency: 4 };
    for (let i = 0; i < WORKERS; i++) workers.push(new Worker(compiled.file, { workerData: data }));
    await Promise.all(workers.map((worker) => message(worker)));
    const view = SharedCircuitRegistry.attach(registry.buffer);
    const circuit = view.circuit(`127.0.0.1:${proxy.port}`);
    const ticket = circuit.tryAdmit();
    const firstGeneration = circuit.ticketGeneration(ticket);
    circuit.complete(ticket, CircuitOutcome.None);
    // The observer: probes taken never exceed the budget, whatever the threads do.
    const observer = (async () => {
      while (observing) {
        const { probesInFlight, probeSuccesses } = circuit.snapshot();
        if (probesInFlight + probeSuccesses > CIRCUIT.halfOpenProbeCount)
          overBudget.push({ probesInFlight, probeSuccesses });
        await delay(1);
      }
    })();
    for (const worker of workers) worker.postMessage('go');
    for (let flap = 0; flap < 4; flap++) {
      await delay(80);
      await proxy.setMode('blackhole');
      await delay(250);
      await proxy.setMode('pass');
    }
    // Healthy from now on: the circuit closes within a few open delays and stays closed.
    const deadline = performance.now() + 5_000;
    while (circuit.state !== 'closed' && performance.now() < deadline) await delay(10);
    await delay(200);
    const reports = workers.map((worker) => message<FlapWorkerReport>(worker));
    for (const worker of workers) worker.postMessage('stop');
    const done = await Promise.all(reports);
    observing = false;
    await observer;
    expect(overBudget).toEqual([]);

    // Each thread's meter counted exactly what its listeners heard.
    for (const report of done)
      expect(report.metered).toEqual(report.heard.map(([from, to]) => `${from}>${to}`));
    // Transitions: one thread each, one generation each, chained along the four edges.
    const heard = done.flatMap((report) => report.heard).sort((a, b) => a[2] - b[2]);
    expect(heard.filter(([from, to]) => from === 'closed' && to === 'open').length).toBeGreaterThan(0);
    let previous: [string, string, number] = ['', 'closed', firstGeneration];
    for (const transition of heard) {
      const [from, to, generation] = transition;
      expect({ edge: `${from}>${to}`, valid: EDGES.has(`${from}>${to}`) }).toEqual({
        edge: `${from}>${to}`,
        valid: true,
      });
      expect({ generation, from }).toEqual({ generation: previous[2] + 1, from: previous[1] });
      previous = transition;
    }
    expect(previous[1]).toBe('closed');
    expect(circuit.state).toBe('closed');
    expect(done.reduce((sum, r) => sum + r.replies, 0)).toBeGreaterThan(0);
    view.detach();
  } finally {
    observing = false;
    await Promise.all(workers.map((worker) => worker.terminate()));
    await proxy.stop();
  }
}, 60_000);
