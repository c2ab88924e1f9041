// Regression (issue 15 break attempt, wt-break15): a client on a shared circuit
// (`circuitBreaker: { shared }`) checks a command queued on a live connection while the circuit is
// open. The shared registry's default clock is turn-cached (one reading per synchronous run,
// shared/registry.ts), and the client's "read the time afresh" for its one-by-one checks
// (circuit-gate.ts `freshTime`) did nothing for a shared registry: the fix made for the
// single-thread circuit (circuit-enqueue-stale-clock.test.ts) did not hold there. After a command
// earlier in the same run read the clock, code that kept the thread busy past the open deadline
// still saw the circuit "open" and rejected the next command, which a fresh reading admits as a
// probe (seed 000 "Half-open"; "checked right before sending"). The registry's clock is now
// refreshed by those checks too.
import { expect, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireCircuitOpenError } from '../../src/index.js';
import { processClock } from '../../src/util/clock.js';
import { tripByRefusal } from '../client/circuit-kit.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());

/** Keeps the thread busy until `until` on the process clock (a shared circuit's time). */
function busyUntil(until: number): void {
  while (processClock.now() <= until) {
    // the event loop is blocked, as by a caller's own heavy synchronous work
  }
}

it('a command queued after the open duration passed within one synchronous run is a probe, not rejected', async () => {
  const options = {
    failureRateThreshold: 0.5,
    minimumFailureCount: 2,
    samplingWindow: 60_000,
    openDuration: 200,
    halfOpenProbeCount: 1,
  };
  const registry = new SharedCircuitRegistry({ ...options, maxEndpoints: 4 });
  const { client, proxy } = await clients.proxied({
    commandTimeout: 5_000,
    connectTimeout: 500,
    reconnect: () => 10,
    circuitBreaker: { shared: registry },
  });
  const circuit = client.circuit!;
  await tripByRefusal({ client, proxy, circuit });
  const { openUntil } = circuit.snapshot();
  expect(openUntil).not.toBeNull();
  // One synchronous run: a command while open (rejected at once, reading the clock), then the
  // thread stays busy past the open deadline, then the next command.
  const early = outcome(client.get('shared-stale:early'));
  busyUntil(openUntil! + 20);
  const late = outcome(client.get('shared-stale:late'));
  expect((await early).error).toBeInstanceOf(RespireCircuitOpenError);
  const result = await late;
  expect(result.error).toBeUndefined();
  expect(result.value).toBeNull();
  expect(circuit.state).toBe('closed');
  expect(circuit.snapshot()).toMatchObject({ probesInFlight: 0, admissionsInFlight: 0 });
});
