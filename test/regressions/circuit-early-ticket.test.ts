// Regression (issue 10, defect 1): a command that waits for a connection past the open delay takes a
// probe ticket early (circuit-gate.ts checkWithoutConnection). If the circuit reopens while it
// waits, that ticket belongs to a finished half-open round: the command must be admitted again
// right before its write (seed 000 "checked right before sending"), so nothing reaches the server
// while the circuit is open and no more than halfOpenProbeCount commands probe a recovering server.
import { setTimeout as delay } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import {
  nextTransition,
  outcome,
  tripWithReset,
  untilProbeDue,
  useCircuitRigs,
} from '../client/circuit-kit.js';
import { adminCommand } from '../kit/admin-command.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

/** How many GETs the server has run (the proxy's byte count cannot tell a GET from a handshake). */
async function serverGets(): Promise<number> {
  const stats = String(await adminCommand(server, ['INFO', 'commandstats']));
  return Number(/cmdstat_get:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

it('an early probe ticket from a round that failed is admitted again before the write', async () => {
  const rig = await rigs.open({
    acquireTimeout: 300,
    circuitBreaker: { halfOpenProbeCount: 2, openDuration: 600 },
  });
  const { client, proxy, circuit } = rig;
  await tripWithReset(rig); // the proxy now resets every connection: the client keeps reconnecting
  await untilProbeDue(circuit);
  const first = outcome(client.get('early:first')); // probe 1 of the half-open round, waiting
  expect(circuit.state).toBe('half_open');
  await delay(100);
  const second = outcome(client.get('early:second')); // probe 2, waiting with its ticket
  const reopened = nextTransition(circuit, 'open');
  // The first probe's acquire deadline passes with no connection: a selection failure reopens.
  await reopened;
  expect((await first).error).toBeDefined();
  const sent = proxy.bytesFromClient;
  const gets = await serverGets();
  await proxy.setMode('pass'); // the endpoint heals while the circuit is open
  const result = await second;
  expect(circuit.state).toBe('open');
  expect(result.error).toBeInstanceOf(RespireCircuitOpenError);
  // Only the handshake went out on the new connection, never the GET.
  expect(proxy.bytesFromClient - sent).toBeLessThan(200);
  expect(await serverGets()).toBe(gets);
  const snapshot = circuit.snapshot();
  expect(snapshot.admissionsInFlight).toBe(0);
});
