// After a completed MOVING handoff, a later reconnect (the new connection drops) went to the
// configured endpoint, the one the MOVING said goes away, instead of the announced one. PROTOCOL.md
// §5 item 2 (as redis-py): new connections go to the announced endpoint for the announced time, then
// back to the configured one. An announced endpoint that refuses the connection is forgotten: the
// next attempt goes to the configured endpoint (as a handoff that cannot open its replacement
// carries on with the old connection). The fake server sends the MOVING: Redis 7.0 cannot send
// maintenance notifications.
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import type { Clock } from '../../src/util/clock.js';
import { push, useMaintenanceFakes } from '../client/maintenance-support.js';
import type { FakeServer } from '../kit/fake-server.js';
import { waitUntil } from '../kit/wait-until.js';

const kit = useMaintenanceFakes();

/** Real time and timers, plus `skew` ms the test adds to jump past the announced time. */
function skewedClock(): Clock & { skew: number } {
  const clock = { skew: 0, now: () => performance.now() + clock.skew };
  return clock;
}

async function movedClient(from: FakeServer, to: FakeServer, clock: Clock): Promise<RespireClient> {
  const client = kit.track(
    await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      reconnect: () => 5,
      clock,
    }),
  );
  await (await from.connection(0)).send(push('MOVING', 1, 30, `${to.host}:${to.port}`));
  // The handoff is complete once the old connection is closed (QUIT after its replies).
  await (await from.connection(0)).closed;
  expect(await client.get('moved')).toBe('moved');
  expect(ranOn(to, 'moved')).toBe(true);
  return client;
}

function ranOn(server: FakeServer, key: string): boolean {
  return server.commands.some(([name, arg]) => name === 'GET' && arg === key);
}

/** Waits until one of the servers accepted a new connection; returns which. */
async function reconnectedTo(from: FakeServer, to: FakeServer, fromBefore: number, toBefore: number) {
  await waitUntil(
    'a reconnection',
    async () => (from.connectionCount > fromBefore || to.connectionCount > toBefore ? true : 'none yet'),
    { timeoutMs: 5_000, intervalMs: 10 },
  );
  return from.connectionCount > fromBefore ? 'configured' : 'announced';
}

describe('reconnecting after a MOVING handoff', () => {
  it('goes to the announced endpoint within the announced time', async () => {
    const from = await kit.fake();
    const to = await kit.fake();
    const client = await movedClient(from, to, skewedClock());
    (await to.connection(0)).socket.destroy();
    expect(await reconnectedTo(from, to, 1, 1)).toBe('announced');
    expect(await client.get('after')).toBe('after');
    expect(ranOn(to, 'after')).toBe(true);
    expect(ranOn(from, 'after')).toBe(false);
  });

  it('goes back to the configured endpoint once the announced time has passed', async () => {
    const from = await kit.fake();
    const to = await kit.fake();
    const clock = skewedClock();
    const client = await movedClient(from, to, clock);
    clock.skew += 31_000;
    (await to.connection(0)).socket.destroy();
    expect(await reconnectedTo(from, to, 1, 1)).toBe('configured');
    expect(await client.get('after')).toBe('after');
    expect(ranOn(from, 'after')).toBe(true);
  });

  it('goes to the configured endpoint when the announced one refuses the reconnection', async () => {
    const from = await kit.fake();
    const to = await kit.fake();
    const client = await movedClient(from, to, skewedClock());
    // The announced server goes away (stops listening) within the announced time.
    await to.close();
    expect(await reconnectedTo(from, to, 1, 1)).toBe('configured');
    expect(await client.get('after')).toBe('after');
    expect(ranOn(from, 'after')).toBe(true);
  });

  it('goes to the configured endpoint when the handoff could not reach the announced one', async () => {
    const from = await kit.fake();
    const client = kit.track(
      await RespireClient.connect({ endpoints: [{ host: from.host, port: from.port }], reconnect: () => 5 }),
    );
    await (await from.connection(0)).send(push('MOVING', 1, 30, '127.0.0.1:1'));
    expect(await client.get('still')).toBe('still');
    (await from.connection(0)).socket.destroy();
    await from.connection(1);
    expect(await client.get('after')).toBe('after');
    expect((await from.connection(1)).commands.some(([, key]) => key === 'after')).toBe(true);
  });
});
