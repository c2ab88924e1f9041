// Two clients of one thread on one SharedCircuitRegistry share the endpoint's circuit, and each
// client's gate forwarded the circuit's transitions to `respire:circuit:transition`: one transition
// was published twice in the thread that made it (and never in the others), so a subscriber counting
// transitions counted two. A shared circuit's transition is now published once per thread that makes
// it, however many clients there share it (issue 15: metrics report each transition once).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { DiagnosticChannels, RespireClient } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients: RespireClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function twoClients(registry: SharedCircuitRegistry): Promise<void> {
  for (let i = 0; i < 2; i++) {
    clients.push(
      await RespireClient.connect({
        endpoints: [{ host: server.host, port: server.port }],
        circuitBreaker: { shared: registry },
      }),
    );
  }
  for (const client of clients) await client.ping();
}

/** Trips the endpoint's circuit from this thread; the messages the channel got meanwhile. */
function tripAndListen(registry: SharedCircuitRegistry): unknown[] {
  const seen: unknown[] = [];
  const onMessage = (message: unknown) => seen.push(message);
  subscribe(DiagnosticChannels.circuitTransition, onMessage);
  try {
    const circuit = registry.circuit(`${server.host}:${server.port}`);
    circuit.complete(circuit.tryAdmit(), CircuitOutcome.Failure);
    expect(circuit.state).toBe('open');
  } finally {
    unsubscribe(DiagnosticChannels.circuitTransition, onMessage);
    registry.detach();
  }
  return seen;
}

const CIRCUIT = { minimumFailureCount: 1, failureRateThreshold: 0.1, openDuration: 60_000 };

describe('a shared circuit used by two clients of one thread', () => {
  it('publishes each transition once', async () => {
    const registry = new SharedCircuitRegistry(CIRCUIT);
    await twoClients(registry);
    const seen = tripAndListen(registry);
    expect(clients[1]!.circuit?.state).toBe('open');
    expect(seen).toHaveLength(1);
  });

  it('still publishes it once the first client is closed', async () => {
    const registry = new SharedCircuitRegistry(CIRCUIT);
    await twoClients(registry);
    await clients.shift()!.close();
    expect(tripAndListen(registry)).toHaveLength(1);
  });
});
