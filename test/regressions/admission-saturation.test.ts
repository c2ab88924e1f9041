// Regression (issue 10, defect 4): a circuit holds at most 524,288 admissions in flight
// (admission-slots.ts). One more made AdmissionSlots.grow() throw inside the pipeline's flush
// microtask: an uncaught exception (a crash in production) and a command that never settled.
// Past the bound a command is rejected, unsent, with a capacity error; the others are unaffected.
import { expect, it } from 'vitest';
import { MAX_ADMISSIONS_IN_FLIGHT } from '../../src/breaker/admission-slots.js';
import { RespireTimeoutError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());

it('admissions past the bound reject their command instead of throwing', { timeout: 60_000 }, async () => {
  const extra = 1_000;
  const total = MAX_ADMISSIONS_IN_FLIGHT + extra;
  const { client, proxy } = await clients.proxied(
    { commandTimeout: 0, maxPendingCommands: total, circuitBreaker: {} },
    { maxQueuedBytes: 64 * 1024 * 1024 },
  );
  await proxy.setMode('blackhole');
  let rejected = 0;
  let other = 0;
  const settled = new Promise<void>((resolve) => {
    for (let i = 0; i < total; i++) {
      client.send(['GET', 'k'], { fireAndForget: i < MAX_ADMISSIONS_IN_FLIGHT }).then(
        () => {},
        (error: unknown) => {
          if (error instanceof RespireTimeoutError && error.phase === 'acquire' && error.written === false)
            rejected++;
          else other++;
          if (rejected + other === extra) resolve();
        },
      );
    }
  });
  await settled;
  expect(rejected).toBe(extra);
  expect(other).toBe(0);
  expect(client.circuit!.snapshot().admissionsInFlight).toBe(MAX_ADMISSIONS_IN_FLIGHT);
});
