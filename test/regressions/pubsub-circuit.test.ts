// Regression (issue 10 #6): the first subscribe() while the circuit was open opened a socket to the
// sick endpoint without a check; the caller got a connection error instead of a rejection, and a
// subscriber connection that could not be opened recorded nothing. Now the subscriber connection is
// opened only when the circuit admits, and failing to open it is a selection failure (seed 000:
// "No healthy connection to select, even though nothing was sent" is a failure), as for the
// dedicated connections of blocking commands.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import {
  expectRejected,
  nextTransition,
  outcome,
  tripByRefusal,
  useCircuitRigs,
} from '../client/circuit-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

describe('the subscriber connection and the circuit', () => {
  it('rejects the first subscribe while the circuit is open, opening no socket', async () => {
    const rig = await rigs.open();
    await tripByRefusal(rig);
    const accepted = rig.proxy.connectionsAccepted;
    const result = await outcome(rig.client.subscribe('sick', () => {}));
    expectRejected(result.error, rig);
    expect(rig.proxy.connectionsAccepted).toBe(accepted);
  });

  it('counts a subscriber connection that cannot be opened as a failure', async () => {
    const rig = await rigs.open();
    await rig.proxy.setMode('refuse');
    const opened = nextTransition(rig.circuit, 'open');
    for (const name of ['first', 'second']) {
      const result = await outcome(rig.client.subscribe(name, () => {}));
      expect(result.error).toBeInstanceOf(RespireConnectionError);
    }
    await opened;
    expect(rig.circuit.state).toBe('open');
  });
});
