// Regression (issue 10 review): a blocking command or watch() borrowing a dedicated connection that
// is still being opened when the client is destroyed failed with "the client is closed" once the
// connection opened, and the circuit took that for a selection failure (circuit-gate.ts borrow):
// a failure the client caused, recorded (seed 000: nothing is recorded for it).
import { expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { recordTransitions, useCircuitRigs } from '../client/circuit-kit.js';
import { outcome } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const rigs = useCircuitRigs(useRedisServer());

for (const path of ['blpop', 'watch'] as const) {
  it(`destroy() while ${path} opens its dedicated connection records nothing`, async () => {
    const { client, proxy, circuit } = await rigs.open({ circuitBreaker: { minimumFailureCount: 1 } });
    const transitions = recordTransitions(circuit);
    await proxy.setMode('delay', 200, 'toClient'); // the handshake of the new connection is slow
    const accepted = proxy.connectionsAccepted;
    const pending: Promise<{ error?: unknown }> =
      path === 'blpop'
        ? outcome(client.blpop('dedicated:destroyed', 0))
        : outcome(client.watch('dedicated:destroyed'));
    await proxy.waitForConnectionsAccepted(accepted + 1);
    client.destroy();
    expect((await pending).error).toBeInstanceOf(RespireConnectionError);
    expect(transitions).toEqual([]);
    expect(circuit.snapshot().failures).toBe(0);
  });
}
