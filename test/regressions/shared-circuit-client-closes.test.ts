// Issue 15 review: a client on a shared circuit (`circuitBreaker: { shared }`) that closes or is
// destroyed while one of its commands holds the half-open circuit's probe slot, waiting for a
// connection. A close the client caused records nothing (seed 000 "Health classification"), so
// the slot goes back to the circuit every thread shares: another thread's view finds the circuit
// still half-open with its probe free, rather than reopened or stuck with every slot taken.
// Issue 15 hunt (no defect found): the same with the probe written and waiting for its reply.
// Destroy records nothing, as above; close lets it end as it would have (here its reply deadline
// passes: a failure, the circuit reopens). Either way no thread keeps the round full.

import { setTimeout as delay } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { AdmitRejection, CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { processClock } from '../../src/util/clock.js';
import {
  FAST_CIRCUIT,
  nextTransition,
  recordTransitions,
  takeDown,
  tripWithReset,
} from '../client/circuit-kit.js';
import { outcome, useTestClients } from '../client/support.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());

/** A proxied client on a shared registry, its circuit tripped; `before` runs before the open delay ends. */
async function trippedSharedClient(commandTimeout: number, before: (proxy: FaultProxy) => Promise<void>) {
  const registry = new SharedCircuitRegistry({ ...FAST_CIRCUIT, maxEndpoints: 4 });
  const { client, proxy } = await clients.proxied({
    commandTimeout,
    connectTimeout: 500,
    acquireTimeout: 5_000,
    reconnect: () => 10,
    circuitBreaker: { shared: registry },
  });
  const circuit = client.circuit!;
  await tripWithReset({ client, proxy, circuit });
  await before(proxy);
  // A shared circuit's deadline is on the process's clock (util/clock.ts processClock).
  const { openUntil } = circuit.snapshot();
  while (processClock.now() < openUntil!) await delay(Math.ceil(openUntil! - processClock.now()));
  return { registry, client, proxy, circuit };
}

for (const how of ['destroy', 'close'] as const) {
  it(`${how}() while a probe waits for a connection frees the shared probe slot`, async () => {
    const { registry, client, proxy, circuit } = await trippedSharedClient(2_000, takeDown);
    const waiting = outcome(client.get('shared-closes:probe')); // takes the shared probe slot, waits
    // Another thread's view of the same endpoint: the one probe slot is taken.
    const view = SharedCircuitRegistry.attach(registry.buffer);
    const elsewhere = view.circuit(`127.0.0.1:${proxy.port}`);
    expect(elsewhere.state).toBe('half_open');
    expect(elsewhere.tryAdmit()).toBe(AdmitRejection.ProbesFull);
    const transitions = recordTransitions(circuit);
    if (how === 'destroy') client.destroy();
    else await client.close();
    expect((await waiting).error).toBeDefined();
    expect(transitions).toEqual([]);
    expect(elsewhere.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 0 });
    const probe = elsewhere.tryAdmit();
    expect(probe).toBeGreaterThanOrEqual(0);
    elsewhere.complete(probe, CircuitOutcome.Success);
    expect(elsewhere.state).toBe('closed');
    view.detach();
    // The client let go of its slot: only the view held it, so now no thread holds it.
    expect(registry.idleCount).toBe(1);
  });
}

for (const how of ['destroy', 'close'] as const) {
  it(`${how}() while a shared probe is in flight leaves no probe slot taken`, async () => {
    const { registry, client, proxy, circuit } = await trippedSharedClient(1_000, (proxy) =>
      proxy.setMode('pass'),
    );
    await proxy.setMode('blackhole');
    const sent = proxy.bytesFromClient;
    const probe = outcome(client.get('shared-close:in-flight'));
    await proxy.waitForClientBytes(sent + 1);
    const view = SharedCircuitRegistry.attach(registry.buffer);
    const elsewhere = view.circuit(`127.0.0.1:${proxy.port}`);
    expect(elsewhere.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1 });
    expect(elsewhere.tryAdmit()).toBe(AdmitRejection.ProbesFull);
    if (how === 'destroy') {
      client.destroy();
      expect((await probe).error).toBeDefined();
      expect(elsewhere.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 0 });
      const ticket = elsewhere.tryAdmit();
      expect(ticket).toBeGreaterThanOrEqual(0);
      elsewhere.complete(ticket, CircuitOutcome.Success);
      expect(elsewhere.state).toBe('closed');
    } else {
      const reopened = nextTransition(circuit, 'open', 10_000);
      await client.close();
      expect((await probe).error).toBeDefined();
      await reopened;
      expect(elsewhere.snapshot()).toMatchObject({ state: 'open', probesInFlight: 0 });
    }
    view.detach();
    expect(registry.idleCount).toBe(1);
  });
}
