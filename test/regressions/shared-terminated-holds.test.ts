// Issue 15: a worker thread that held endpoints of a SharedCircuitRegistry and was terminated
// (worker.terminate(), as a pool such as Piscina does when it recycles threads) never let go of
// its slots, so workers that came and went filled the bounded table (`maxEndpoints`) for good and
// every new endpoint was refused. A dead thread's holds now end once the table needs the slot; a
// live thread's never do, even while it is busy in a long synchronous run.
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireConfigurationError } from '../../src/errors.js';
import { type CompiledEntry, compileEntry } from '../kit/compile-entry.js';
import type { HolderData, HolderReply } from './shared-holder-worker.js';

let compiled: CompiledEntry;
const started: Worker[] = [];

beforeAll(async () => {
  compiled = await compileEntry('test/regressions/shared-holder-worker.ts');
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((worker) => worker.terminate()));
  compiled?.remove();
});

function reply(worker: Worker): Promise<HolderReply> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function holder(buffer: SharedArrayBuffer, endpoint: string): Promise<[Worker, HolderReply]> {
  const worker = new Worker(compiled.file, { workerData: { buffer, endpoint } satisfies HolderData });
  started.push(worker);
  return [worker, await reply(worker)];
}

describe('a shared registry whose worker threads come and go', () => {
  it('lets terminated workers go of their slots, so the table does not fill', async () => {
    const registry = new SharedCircuitRegistry({ maxEndpoints: 2, maxIdleHistories: 0 });
    for (let round = 0; round < 5; round++) {
      const [worker, answer] = await holder(registry.buffer, `worker-${round}:6379`);
      expect(answer, `round ${round}`).toEqual({ held: true });
      await worker.terminate();
    }
    // This thread takes both slots: no dead worker holds one any more.
    registry.circuit('main-a:6379');
    registry.circuit('main-b:6379');
    expect(registry.size).toBe(2);
    expect(registry.idleCount).toBe(0);
    // The holder records' bookkeeping leaves the header's options as they were.
    expect(SharedCircuitRegistry.attach(registry.buffer).probeTimeout).toBe(registry.probeTimeout);
  }, 60_000);

  it('never takes a slot from a live worker, even one busy in a long synchronous run', async () => {
    const registry = new SharedCircuitRegistry({ maxEndpoints: 1, maxIdleHistories: 0 });
    const [worker, answer] = await holder(registry.buffer, 'live:6379');
    expect(answer).toEqual({ held: true });
    const spun = reply(worker);
    worker.postMessage({ spin: 1_500 });
    // While it spins it cannot answer anything; asked twice, it still counts as alive.
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(() => registry.acquire(`other-${attempt}:6379`)).toThrow(RespireConfigurationError);
    }
    expect(await spun).toEqual({ spun: true });
    expect(() => registry.acquire('other-after:6379')).toThrow(RespireConfigurationError);
    expect(registry.size).toBe(1);
  }, 60_000);
});
