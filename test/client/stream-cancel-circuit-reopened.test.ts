// Issue 13 (a hunt that found no defect; kept as a guard): a streamed GET admitted while the circuit was closed, held by a stalled reader
// while the circuit opens and a half-open round starts, then cancelled. Its "no outcome" belongs to
// the closed round: it must neither count in the new round nor free the probe slot another
// stream holds there (seed 000 "No health outcome", BREAKER.md: stale admissions are ignored).
import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../kit/vitest-redis.js';
import {
  expectRejected,
  outcome,
  recordTransitions,
  tripUntilProbeDue,
  useCircuitRigs,
} from './circuit-kit.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);
const VALUE_BYTES = 8 * 1024 * 1024;

function* pieces(length: number): Generator<Buffer> {
  for (let at = 0; at < length; at += 64 * 1024) yield Buffer.alloc(Math.min(64 * 1024, length - at), 7);
}

describe('a streamed GET cancelled after its circuit reopened', () => {
  it('records nothing in the new round and leaves its probe slot taken', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    const direct = await rigs.direct();
    await direct.setFromStream('circuit:big', pieces(VALUE_BYTES), { length: VALUE_BYTES });
    const stale = client.getStream('circuit:big');
    await new Promise((resolve) => stale.once('data', resolve));
    stale.pause();
    await tripUntilProbeDue(rig);
    const transitions = recordTransitions(circuit);
    // The round's only probe: a second stream, held by its reader too.
    const probe = client.getStream('circuit:big');
    await new Promise((resolve) => probe.once('data', resolve));
    probe.pause();
    expect(circuit.state).toBe('half_open');
    const counted = circuit.snapshot();
    stale.destroy();
    await new Promise((resolve) => stale.once('close', resolve));
    expect(circuit.snapshot().probesInFlight).toBe(1);
    expect(circuit.snapshot().total).toBe(counted.total);
    expectRejected((await outcome(client.get('circuit:other'))).error, rig, null);
    probe.destroy();
    await new Promise((resolve) => probe.once('close', resolve));
    expect(circuit.snapshot().probesInFlight).toBe(0);
    expect(await client.get('circuit:other')).toBeNull();
    expect(transitions).toEqual(['open>half_open', 'half_open>closed']);
  });
});
