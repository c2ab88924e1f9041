// Issue 15 break attempt (wt-break15): a worker terminated while it holds a shared circuit's guard
// (here in the middle of a trip: the ring has its failure, the closed-generation cell says -1, the
// state word still says closed). The next thread that needs the guard spins, then takes it over
// once it has seen the same holder for `probeTimeout` (README "A thread that never comes back"),
// and the circuit carries on by seed 000's rules: the success that was pending in the other
// thread's lane and the dead thread's failure count, the next failure trips it (reported once, in
// the thread that made it), and it recovers through a probe. No defect found; kept as coverage of
// a takeover in the middle of a trip (shared-probe-abandoned.test.ts takes it over from a holder
// stopped in a plain closed outcome).
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { processClock } from '../../src/util/clock.js';
import { type CompiledEntry, compileEntry } from '../kit/compile-entry.js';
import type { GuardHolderData } from './shared-guard-holder-worker.js';

const PROBE_TIMEOUT = 150;
let compiled: CompiledEntry;

beforeAll(async () => {
  compiled = await compileEntry('test/regressions/shared-guard-holder-worker.ts');
}, 60_000);
afterAll(() => compiled?.remove());

it('a thread takes over the guard of a worker terminated inside it, and the circuit keeps its rules', async () => {
  const registry = new SharedCircuitRegistry({
    maxEndpoints: 2,
    minimumFailureCount: 1,
    failureRateThreshold: 0.3,
    samplingWindow: 60_000,
    openDuration: 20,
    openDurationJitter: 0.5,
    probeTimeout: PROBE_TIMEOUT,
  });
  const endpoint = 'guard-holder:6379';
  const circuit = registry.circuit(endpoint);
  const heard: string[] = [];
  circuit.onTransition((from: string, to: string) => heard.push(`${from}>${to}`));
  // A success of this thread, and one pending in its lane (the first one opens the lane).
  circuit.complete(circuit.tryAdmit(), CircuitOutcome.Success);
  circuit.complete(circuit.tryAdmit(), CircuitOutcome.Success);

  const control = new SharedArrayBuffer(8);
  const data: GuardHolderData = { buffer: registry.buffer, endpoint, control };
  const worker = new Worker(compiled.file, { workerData: data });
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  let failed: unknown;
  worker.once('error', (error) => {
    failed = error;
  });
  const cell = new Int32Array(control);
  // The worker is blocked inside the guard and can send no message: its cell says when it is there.
  while (Atomics.load(cell, 0) === 0 && failed === undefined)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect(failed).toBeUndefined();
  await worker.terminate();
  await exited;

  // Dead inside the trip: the word still says closed.
  expect(circuit.state).toBe('closed');
  const started = processClock.now();
  const ticket = circuit.tryAdmit();
  expect(ticket).toBeGreaterThanOrEqual(0);
  circuit.complete(ticket, CircuitOutcome.Failure); // spins until the takeover
  const waited = processClock.now() - started;
  expect(waited).toBeGreaterThanOrEqual(PROBE_TIMEOUT - 1);
  expect(waited).toBeLessThan(PROBE_TIMEOUT + 5_000);
  // Two successes and two failures (the worker's and this one): trips, once, here.
  expect(circuit.state).toBe('open');
  expect(heard).toEqual(['closed>open']);
  expect(circuit.snapshot()).toMatchObject({ state: 'open', failures: 2, total: 4, consecutiveTrips: 1 });

  // And it recovers: past the open delay a probe is admitted, and its success closes it. The
  // failure's time is when it was known, before the spin, and the registry's clock is read once
  // per synchronous run: a new turn reads it afresh.
  const { openUntil } = circuit.snapshot();
  do await new Promise((resolve) => setTimeout(resolve, 5));
  while (processClock.now() < openUntil!);
  const probe = circuit.tryAdmit();
  expect(probe).toBeGreaterThanOrEqual(0);
  circuit.complete(probe, CircuitOutcome.Success);
  expect(heard).toEqual(['closed>open', 'open>half_open', 'half_open>closed']);
  expect(circuit.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0 });
  // The fast path works again: closed successes count, a snapshot sees them.
  for (let i = 0; i < 3; i++) circuit.complete(circuit.tryAdmit(), CircuitOutcome.Success);
  expect(circuit.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 3 });
  registry.detach();
}, 30_000);
