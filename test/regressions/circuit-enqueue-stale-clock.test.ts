// Regression (break attempt on the enqueue-time rejection, issue 11): a command queued on a live
// connection is rejected at once while the circuit is open within its open duration. That check
// read the client's turn-cached clock (one reading per synchronous run, circuit-gate.ts), so after
// a command earlier in the same run read it, code that kept the thread busy past the open deadline
// (a long synchronous computation) still saw the circuit "open" and rejected the next command at
// once, though the admission at the flush, on a fresh reading, admits it as a probe (seed 000
// "Half-open": past the open duration the next command is a probe; "checked right before
// sending"). The check now reads the clock afresh, as the other one-by-one checks do.
import { expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import { tripByRefusal, useCircuitRigs } from '../client/circuit-kit.js';
import { outcome } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const rigs = useCircuitRigs(useRedisServer());

/** Keeps the thread busy until `until` (performance.now() time): a long synchronous computation. */
function busyUntil(until: number): void {
  while (performance.now() <= until) {
    // the event loop is blocked, as by a caller's own heavy synchronous work
  }
}

it('a command queued after the open duration passed within one synchronous run is a probe, not rejected', async () => {
  const rig = await rigs.open({
    circuitBreaker: { openDuration: 200, halfOpenProbeCount: 1 },
    commandTimeout: 5_000,
  });
  const { client, circuit } = rig;
  await tripByRefusal(rig);
  const { openUntil } = circuit.snapshot();
  expect(openUntil).not.toBeNull();
  // One synchronous run: a command while open (rejected at once, reading the clock), then the
  // thread stays busy past the open deadline, then the next command.
  const early = outcome(client.get('stale:early'));
  busyUntil(openUntil! + 20);
  const late = outcome(client.get('stale:late'));
  expect((await early).error).toBeInstanceOf(RespireCircuitOpenError);
  const result = await late;
  expect(result.error).toBeUndefined();
  expect(result.value).toBeNull();
  expect(circuit.state).toBe('closed');
  expect(circuit.snapshot()).toMatchObject({ probesInFlight: 0, admissionsInFlight: 0 });
});
