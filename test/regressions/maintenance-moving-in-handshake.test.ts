// A MOVING read in the same socket read as the last reply of a connection's handshake was dropped:
// the push is handled as the bytes are parsed, before the channel has taken the connection (that
// happens once the handshake's promise settles, a microtask later), so the handoff found no
// connection to replace and stopped; the connection stayed on the endpoint that goes away. This
// made test/regressions/failover-moved-write-cache.test.ts flaky (7 runs in 10 had one of the four
// handoffs missing). Now the handoff waits for the channel to take the connection, within the
// announced time, and replaces it. The fake server writes the MOVING behind the handshake's last
// reply in one write: Redis 7.0 cannot send maintenance notifications.
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';
import type { FakeServer } from '../kit/fake-server.js';

const kit = useMaintenanceFakes();

/**
 * A server whose `movingOn`-th connection (from 0) answers its handshake's last command (CLIENT
 * SETINFO LIB-VER) with a MOVING to `to` right behind the reply, in the same write.
 */
async function movingInHandshake(to: FakeServer, movingOn: number): Promise<FakeServer> {
  let handshakes = 0;
  return kit.fake((args) => {
    const reply = maintenanceAnswer(args);
    if (args[0]?.toUpperCase() !== 'CLIENT' || args[2] !== 'LIB-VER') return reply;
    return handshakes++ === movingOn ? reply + push('MOVING', 1, 30, `${to.host}:${to.port}`) : reply;
  });
}

function ranOn(server: FakeServer, key: string): boolean {
  return server.commands.some(([name, arg]) => name === 'GET' && arg === key);
}

describe('a MOVING right behind the last handshake reply', () => {
  it("hands over the client's first connection", async () => {
    const to = await kit.fake();
    const from = await movingInHandshake(to, 0);
    const client = kit.track(
      await RespireClient.connect({ endpoints: [{ host: from.host, port: from.port }], reconnect: () => 5 }),
    );
    // The handoff QUITs the old connection once the replacement took over.
    expect(await outcomeWithin((await from.connection(0)).closed, 5_000)).not.toBe('pending');
    expect(await client.get('after')).toBe('after');
    expect(ranOn(to, 'after')).toBe(true);
    expect(ranOn(from, 'after')).toBe(false);
    expect(from.connectionCount).toBe(1);
  });

  it('hands over a reconnection', async () => {
    const to = await kit.fake();
    const from = await movingInHandshake(to, 1);
    const client = kit.track(
      await RespireClient.connect({ endpoints: [{ host: from.host, port: from.port }], reconnect: () => 5 }),
    );
    (await from.connection(0)).socket.destroy();
    expect(await outcomeWithin((await from.connection(1)).closed, 5_000)).not.toBe('pending');
    expect(await client.get('after')).toBe('after');
    expect(ranOn(to, 'after')).toBe(true);
    expect(ranOn(from, 'after')).toBe(false);
  });
});
