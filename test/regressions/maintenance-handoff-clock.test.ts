// A MOVING without an endpoint waits half the announced time before reconnecting (PROTOCOL.md §5).
// That wait ran on the global setTimeout, not on the client's clock: a simulated clock never saw
// it, and after close() the pending timer kept the process alive for up to half the announced
// time. The fake server sends the MOVING (Redis 7.0 cannot send maintenance notifications).
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { useMaintenanceFakes } from '../client/maintenance-support.js';
import { parkedClock } from '../kit/parked-clock.js';
import { waitUntil } from '../kit/wait-until.js';

const fakes = useMaintenanceFakes();

describe('a MOVING without an endpoint', () => {
  it("waits half the announced time on the client's clock", async () => {
    const target = await fakes.fake();
    const clock = parkedClock(60_000);
    const client = await RespireClient.connect({
      endpoints: [{ host: target.host, port: target.port }],
      clock,
    });
    fakes.track(client);
    // MOVING seq 7, 3600 s, no endpoint: reconnect to the configured one after 1800 s.
    await (await target.connection(0)).send('>4\r\n$6\r\nMOVING\r\n:7\r\n:3600\r\n_\r\n');
    await waitUntil(
      'the handoff timer',
      async () => (clock.parked.some((timer) => timer.delayMs === 1_800_000) ? true : 'not on the clock'),
      { timeoutMs: 3_000 },
    );
    for (const timer of clock.parked.filter((parked) => parked.delayMs === 1_800_000)) timer.fire();
    await target.connection(1);
    expect(await client.get('moved')).toBe('moved');
    const second = await target.connection(1);
    expect(second.commands.some(([name, key]) => name === 'GET' && key === 'moved')).toBe(true);
  });
});
