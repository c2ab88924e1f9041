// Regression (seed 000 "No health outcome is recorded … for a streamed GET cancelled or disposed
// before its reply ends"; a reply that arrived is a healthy endpoint). A streamed GET whose reply had
// fully arrived (its connection already given back, clean) but whose reader destroyed the stream
// before reading it to its end recorded no outcome: success waited for the stream's 'end', which
// only the reader brings. A half-open probe whose server answered whole thus closed nothing, and a
// reader that stalled over a complete reply held the probe slot until the gate's bound, while an
// error reply (WRONGTYPE) was recorded at once. Success is now recorded when the reply ends.
import { describe, expect, it } from 'vitest';
import { outcome, recordTransitions, tripUntilProbeDue, useCircuitRigs } from '../client/circuit-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

describe('a streamed GET destroyed after its reply ended, before it was read', () => {
  it('records the reply as a success: the half-open probe closes the circuit', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    const direct = await rigs.direct();
    await direct.set('stream-after-reply:k', 'hello');
    await tripUntilProbeDue(rig);
    const transitions = recordTransitions(circuit);
    const stream = client.getStream('stream-after-reply:k');
    expect(await stream.valueLength).toBe(5);
    // The whole value is in the stream's buffer: the reply ended on the wire.
    await expect.poll(() => stream.readableLength).toBe(5);
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    expect(circuit.state).toBe('closed');
    expect(transitions).toEqual(['open>half_open', 'half_open>closed']);
  });

  it('a missing key (a null reply) destroyed unread records a success too', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    await tripUntilProbeDue(rig);
    const stream = client.getStream('stream-after-reply:missing');
    expect(await stream.valueLength).toBeNull();
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    expect(circuit.state).toBe('closed');
    // And the connection it gave back serves the next command.
    expect((await outcome(client.get('stream-after-reply:missing'))).value).toBeNull();
  });
});
