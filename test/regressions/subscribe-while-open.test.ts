// Regression (issue 10, defect 6): the first subscribe() opened the subscriber connection without
// asking the circuit. While the circuit is open it must be rejected at once with
// RespireCircuitOpenError and no socket opened to the sick endpoint (seed 000 "Rejections"; README:
// every send path is checked, the subscriber connection included).
import { expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import { tripByRefusal, useCircuitRigs } from '../client/circuit-kit.js';
import { outcome } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const rigs = useCircuitRigs(useRedisServer());

it('the first subscribe() while the circuit is open is rejected without opening a socket', async () => {
  const rig = await rigs.open({ circuitBreaker: { openDuration: 60_000 } });
  const { client, proxy, circuit } = rig;
  await tripByRefusal(rig);
  expect(circuit.state).toBe('open');
  const accepted = proxy.connectionsAccepted;
  const result = await outcome(client.subscribe('open:news', () => {}));
  expect(result.error).toBeInstanceOf(RespireCircuitOpenError);
  expect(proxy.connectionsAccepted).toBe(accepted);
  expect(circuit.state).toBe('open');
});
