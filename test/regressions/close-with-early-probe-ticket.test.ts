// Regression (issue 10 review): a command that waits for a connection past the open delay holds an
// early probe ticket (circuit-gate.ts checkWithoutConnection). When the client itself closes or
// destroys the channel, that command fails with "the client is closed", a failure the client
// caused: seed 000 says nothing is recorded, so the probe slot is freed and the circuit does not
// reopen (no half_open -> open transition reaches listeners or metrics).
import { expect, it } from 'vitest';
import {
  RecordingMeter,
  recordTransitions,
  takeDown,
  tripWithReset,
  untilProbeDue,
  useCircuitRigs,
} from '../client/circuit-kit.js';
import { outcome } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const rigs = useCircuitRigs(useRedisServer());

for (const how of ['destroy', 'close'] as const) {
  it(`${how}() while a probe waits for a connection records nothing`, async () => {
    const meter = new RecordingMeter();
    const rig = await rigs.open({ acquireTimeout: 5_000, meter });
    const { client, proxy, circuit } = rig;
    await tripWithReset(rig);
    await takeDown(proxy);
    await untilProbeDue(circuit);
    const waiting = outcome(client.get('early-ticket:close')); // takes the probe slot, waits
    expect(circuit.state).toBe('half_open');
    expect(circuit.snapshot().probesInFlight).toBe(1);
    const transitions = recordTransitions(circuit);
    const before = meter.of('respire.circuit.transitions').length;
    if (how === 'destroy') client.destroy();
    else await client.close();
    expect((await waiting).error).toBeDefined();
    expect(transitions).toEqual([]);
    expect(meter.of('respire.circuit.transitions').length).toBe(before);
    expect(circuit.state).toBe('half_open');
    expect(circuit.snapshot().probesInFlight).toBe(0);
  });
}
