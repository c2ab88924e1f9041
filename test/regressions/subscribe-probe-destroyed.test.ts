// Regression (issue 10 review): past the open delay the first subscribe() opens the subscriber
// connection through the circuit's check (pubsub/subscriber.ts, CircuitGate.borrow). If the client is
// destroyed while that connection is still being opened, the subscribe fails because the client
// closed it: at once (not at connectTimeout, when the abandoned handshake gives up), and, as seed
// 000 records nothing for a failure the client caused, no transition and no probe is left held.
import { expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { recordTransitions, tripByRefusal, untilProbeDue, useCircuitRigs } from '../client/circuit-kit.js';
import { outcomeWithin } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const rigs = useCircuitRigs(useRedisServer());

it('destroy() while the first subscribe() probe is connecting fails it at once, recording nothing', async () => {
  const rig = await rigs.open({ connectTimeout: 5_000 });
  const { client, proxy, circuit } = rig;
  await tripByRefusal(rig);
  await proxy.setMode('blackhole'); // new connections are accepted but never answer the handshake
  await untilProbeDue(circuit);
  const accepted = proxy.connectionsAccepted;
  const subscribed = client.subscribe('probe:news', () => {});
  await proxy.waitForConnectionsAccepted(accepted + 1);
  const transitions = recordTransitions(circuit);
  client.destroy();
  const result = await outcomeWithin(subscribed, 2_000); // connectTimeout is 5 s
  expect(result).not.toBe('pending');
  expect((result as { error?: unknown }).error).toBeInstanceOf(RespireConnectionError);
  expect(transitions).toEqual([]);
  expect(circuit.snapshot().probesInFlight).toBe(0);
});
