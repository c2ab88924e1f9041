// Issue 15 hunt: a client on a shared circuit (`circuitBreaker: { shared }`) destroyed or closed
// while its half-open probe is written and waiting for its reply (the proxy holds the reply), as
// another thread's view of the circuit sees every probe slot taken. Destroy fails the probe, a
// failure the client caused, so it records nothing and the slot goes back to every thread; close
// lets it end as it would have (here its reply deadline passes: a failure, the circuit reopens).
// Either way no thread is left with the round full for `probeTimeout`.
import { setTimeout as delay } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { AdmitRejection, CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { processClock } from '../../src/util/clock.js';
import { FAST_CIRCUIT, nextTransition, tripWithReset } from '../client/circuit-kit.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());

for (const how of ['destroy', 'close'] as const) {
  it(`${how}() while a shared probe is in flight leaves no probe slot taken`, async () => {
    const registry = new SharedCircuitRegistry({ ...FAST_CIRCUIT, maxEndpoints: 4 });
    const { client, proxy } = await clients.proxied({
      commandTimeout: 1_000,
      connectTimeout: 500,
      acquireTimeout: 5_000,
      reconnect: () => 10,
      circuitBreaker: { shared: registry },
    });
    const circuit = client.circuit!;
    await tripWithReset({ client, proxy, circuit });
    await proxy.setMode('pass');
    const { openUntil } = circuit.snapshot();
    while (processClock.now() < openUntil!) await delay(Math.ceil(openUntil! - processClock.now()));
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
      const reopened = nextTransition(circuit, 'open');
      await client.close();
      expect((await probe).error).toBeDefined();
      await reopened;
      expect(elsewhere.snapshot()).toMatchObject({ state: 'open', probesInFlight: 0 });
    }
    view.detach();
    expect(registry.idleCount).toBe(1);
  });
}
