// A shared circuit's default clock was `performance.timeOrigin + performance.now()`, and each
// thread's `timeOrigin` is the wall clock when that thread started: a worker started after the wall
// clock was stepped (NTP, a resumed VM; pools start workers all the time) read times off by the
// step. Its circuit opened by another thread was already past its deadline (a probe at once), or
// still open for the step's length. The default clock is now the process's monotonic clock, one
// origin for every thread. The step is simulated by moving the worker's `timeOrigin` alone.
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { type CompiledEntry, compileEntry } from '../kit/compile-entry.js';

const OPEN_MS = 60_000;
const HOUR = 3_600_000;
let compiled: CompiledEntry;

beforeAll(async () => {
  compiled = await compileEntry('test/regressions/shared-clock-origin-worker.ts');
}, 60_000);

afterAll(() => compiled?.remove());

async function admissionInWorker(
  buffer: SharedArrayBuffer,
  shift: number,
): Promise<{ admitted: boolean; state: string; retryAfter: number }> {
  const worker = new Worker(compiled.file, { workerData: { buffer, shift } });
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe('a shared circuit across threads whose wall clocks started apart', () => {
  for (const shift of [HOUR, -HOUR]) {
    it(`keeps the open deadline in a worker whose timeOrigin is off by ${shift} ms`, async () => {
      const registry = new SharedCircuitRegistry({
        minimumFailureCount: 1,
        openDuration: OPEN_MS,
        openDurationJitter: 0,
      });
      const circuit = registry.circuit('redis:6379');
      circuit.complete(circuit.tryAdmit(), CircuitOutcome.Failure);
      expect(circuit.state).toBe('open');
      const seen = await admissionInWorker(registry.buffer, shift);
      expect(seen.admitted).toBe(false);
      expect(seen.state).toBe('open');
      expect(seen.retryAfter).toBeGreaterThan(0);
      expect(seen.retryAfter).toBeLessThanOrEqual(OPEN_MS);
    });
  }
});
