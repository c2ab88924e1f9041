// A worker ended by worker.terminate() (or a crash) while it held the half-open probe of a shared
// circuit never gave the probe slot back: every thread then saw the circuit half-open with every
// probe slot taken, for good, and the endpoint was refused forever (BREAKER.md 12: probes are
// bounded, so a half-open circuit cannot stick). Now a probe slot not taken again for the
// registry's `probeTimeout` is taken back by the next admission attempt in any thread, which starts
// a new half-open round (a new generation, so the late outcome of a taken-back probe changes
// nothing, BREAKER.md 11).
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmitRejection, CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { fakeClock } from '../../src/breaker/testing/index.js';
import { type CompiledEntry, compileEntry } from '../kit/compile-entry.js';

const OPEN_MS = 1_000;
const PROBE_TIMEOUT_MS = 5_000;
const OPTIONS = { minimumFailureCount: 1, openDuration: OPEN_MS, probeTimeout: PROBE_TIMEOUT_MS };
let compiled: CompiledEntry;

beforeAll(async () => {
  compiled = await compileEntry('test/regressions/shared-probe-abandoned-worker.ts');
}, 60_000);

afterAll(() => compiled?.remove());

/** Starts a worker (see the worker's file for `mode`); resolves with its first message. */
async function startWorker<T = { admitted: boolean; state: string }>(
  buffer: SharedArrayBuffer,
  time: number,
  mode: 'probe' | 'guard' | 'record' | 'table',
): Promise<{ worker: Worker; seen: T }> {
  const worker = new Worker(compiled.file, { workerData: { buffer, time, mode } });
  const seen = await new Promise<T>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, seen };
}

describe('a shared circuit whose probe was held by a terminated worker', () => {
  it('gives the probe slot to another thread after probeTimeout, which closes the circuit', async () => {
    const clock = fakeClock();
    const registry = new SharedCircuitRegistry(OPTIONS, clock);
    const circuit = registry.circuit('redis:6379');
    circuit.complete(circuit.tryAdmit(), CircuitOutcome.Failure);
    expect(circuit.state).toBe('open');

    const { worker, seen } = await startWorker(registry.buffer, OPEN_MS, 'probe');
    expect(seen).toEqual({ admitted: true, state: 'half_open' });
    await worker.terminate();

    clock.advance(OPEN_MS + PROBE_TIMEOUT_MS - 1);
    expect(circuit.check()).toBe(AdmitRejection.ProbesFull);
    expect(circuit.tryAdmit()).toBe(AdmitRejection.ProbesFull);

    clock.advance(1);
    expect(circuit.check()).toBe(0);
    const probe = circuit.tryAdmit();
    expect(probe).toBeGreaterThanOrEqual(0);
    expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1 });
    expect(circuit.tryAdmit()).toBe(AdmitRejection.ProbesFull);
    circuit.complete(probe, CircuitOutcome.Success);
    expect(circuit.state).toBe('closed');
  });

  it('lets a taken-back probe that completes late change nothing', () => {
    const clock = fakeClock();
    const registry = new SharedCircuitRegistry({ ...OPTIONS, halfOpenProbeCount: 2 }, clock);
    const slow = registry.circuit('redis:6379');
    const other = SharedCircuitRegistry.attach(registry.buffer, clock).circuit('redis:6379');
    slow.complete(slow.tryAdmit(), CircuitOutcome.Failure);
    clock.advance(OPEN_MS);
    const first = slow.tryAdmit();
    const second = slow.tryAdmit();
    slow.complete(second, CircuitOutcome.Success);
    // One success counted, one probe in flight: full, until the last probe taken is probeTimeout old.
    clock.advance(PROBE_TIMEOUT_MS);
    const taken = other.tryAdmit();
    expect(taken).toBeGreaterThanOrEqual(0);
    // The new round keeps the success it had counted and holds the new probe only.
    expect(other.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1, probeSuccesses: 1 });
    expect(slow.isCurrent(first)).toBe(false);
    slow.complete(first, CircuitOutcome.Failure);
    expect(other.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1, probeSuccesses: 1 });
    other.complete(taken, CircuitOutcome.Success);
    expect(other.state).toBe('closed');
  });

  it('does not take back a slot while probes are still being taken', () => {
    const clock = fakeClock();
    const registry = new SharedCircuitRegistry({ ...OPTIONS, halfOpenProbeCount: 2 }, clock);
    const circuit = registry.circuit('redis:6379');
    circuit.complete(circuit.tryAdmit(), CircuitOutcome.Failure);
    clock.advance(OPEN_MS);
    circuit.tryAdmit(); // never completed
    clock.advance(PROBE_TIMEOUT_MS - 1);
    const late = circuit.tryAdmit(); // the last slot, taken just before the first probe's bound
    expect(late).toBeGreaterThanOrEqual(0);
    clock.advance(1);
    // The first probe is probeTimeout old, but the round's latest was taken 1 ms ago.
    expect(circuit.tryAdmit()).toBe(AdmitRejection.ProbesFull);
    clock.advance(PROBE_TIMEOUT_MS - 1);
    expect(circuit.tryAdmit()).toBeGreaterThanOrEqual(0);
  });

  it('lets another thread take the guard of a worker terminated inside it, after probeTimeout', async () => {
    const registry = new SharedCircuitRegistry(OPTIONS, fakeClock());
    const holder = await startWorker(registry.buffer, 0, 'guard');
    expect(holder.seen.admitted).toBe(true);
    await holder.worker.terminate();
    // Before, this thread spun on the guard for good (and the test timed out).
    const recorder = await startWorker<{ total: number; failures: number }>(registry.buffer, 0, 'record');
    await recorder.worker.terminate();
    expect(recorder.seen).toMatchObject({ state: 'closed', total: 1, failures: 0 });
    expect(registry.circuit('redis:6379').snapshot()).toMatchObject({ total: 1, failures: 0 });
  });

  it('lets another thread take the table lock of a worker terminated inside it, after probeTimeout', async () => {
    const registry = new SharedCircuitRegistry(OPTIONS, fakeClock());
    const holder = await startWorker(registry.buffer, 0, 'table');
    expect(holder.seen.admitted).toBe(true);
    await holder.worker.terminate();
    // Before, a thread taking a slot spun on the table lock for good: the recorder never reported
    // (its clock moves 1 s at each reading, so it takes the lock over after 5 readings).
    const recorder = new Worker(compiled.file, {
      workerData: { buffer: registry.buffer, time: 0, mode: 'record' },
    });
    const seen = await new Promise((resolve, reject) => {
      const bound = setTimeout(resolve, 15_000, 'still spinning after 15 s');
      recorder.once('message', (message) => {
        clearTimeout(bound);
        resolve(message);
      });
      recorder.once('error', reject);
    });
    await recorder.terminate();
    expect(seen).toMatchObject({ state: 'closed', total: 1 });
  }, 30_000);

  it('refuses a probeTimeout out of range', () => {
    for (const probeTimeout of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 30 + 1]) {
      expect(() => new SharedCircuitRegistry({ probeTimeout })).toThrow(/probeTimeout/);
    }
    expect(new SharedCircuitRegistry().probeTimeout).toBe(30_000);
  });
});
