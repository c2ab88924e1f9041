// A MOVING handoff whose old connection was reset while the replacement was still being opened
// dropped the MOVING altogether: the channel reconnected to its configured endpoint (the one the
// MOVING said goes away), and the replacement to the announced endpoint was then thrown away
// because the connection it was to replace was no longer the channel's. Now the handoff replaces
// the connection the channel reconnected with instead (PROTOCOL.md §5 item 2; issue 14). Since
// reconnections within the announced time go to the announced endpoint themselves
// (maintenance-moved-reconnect.test.ts), both the replacement and the reconnection are connections
// to it here, and either may be ready first. The fake server sends the MOVING: Redis 7.0 cannot send
// maintenance notifications.
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { push, useMaintenanceFakes } from '../client/maintenance-support.js';
import type { FakeServer } from '../kit/fake-server.js';
import { waitUntil } from '../kit/wait-until.js';

const kit = useMaintenanceFakes();

/** A server whose connections numbered in `held` wait to answer their handshake until released. */
async function heldServer(
  held: readonly number[],
): Promise<{ server: FakeServer; release: (index: number) => void }> {
  const releases = new Map<number, () => void>();
  const waits = new Map<number, Promise<void>>();
  for (const index of held) waits.set(index, new Promise<void>((resolve) => releases.set(index, resolve)));
  const server = await kit.fake(undefined, (index) => {
    const wait = waits.get(index);
    return wait === undefined ? [] : [{ waitFor: wait }];
  });
  return { server, release: (index) => releases.get(index)!() };
}

function moving(to: FakeServer): string {
  return push('MOVING', 1, 30, `${to.host}:${to.port}`);
}

/**
 * A client on `from` whose first connection got a MOVING to `to` and was then reset; the
 * reconnection is `to`'s second connection.
 */
async function resetDuringHandoff(from: FakeServer, to: FakeServer): Promise<RespireClient> {
  const client = kit.track(
    await RespireClient.connect({ endpoints: [{ host: from.host, port: from.port }], reconnect: () => 5 }),
  );
  const first = await from.connection(0);
  await first.send(moving(to));
  await to.connection(0);
  // The old connection is reset mid-handoff; the channel reconnects, to the announced endpoint.
  first.socket.destroy();
  await to.connection(1);
  return client;
}

function ranOn(server: FakeServer, key: string): boolean {
  return server.commands.some(([name, arg]) => name === 'GET' && arg === key);
}

describe('a MOVING handoff while the old connection is reset', () => {
  it('makes the replacement the reconnection when it is ready first', async () => {
    const { server: from } = await heldServer([]);
    const { server: to, release } = await heldServer([0, 1]);
    const client = await resetDuringHandoff(from, to);
    // The reconnection (to's connection 1) stays held: the replacement is ready first.
    release(0);
    expect(await client.get('after')).toBe('after');
    expect(ranOn(to, 'after')).toBe(true);
    expect(ranOn(from, 'after')).toBe(false);
  });

  it('replaces the connection the channel reconnected with', async () => {
    const { server: from } = await heldServer([]);
    const { server: to, release } = await heldServer([0]);
    const client = await resetDuringHandoff(from, to);
    await waitUntil(
      'the reconnection handshake',
      async () => ((await to.connection(1)).commands.some(([name]) => name === 'CLIENT') ? true : 'not yet'),
      { timeoutMs: 5_000 },
    );
    release(0);
    expect(await client.get('after')).toBe('after');
    expect(ranOn(to, 'after')).toBe(true);
    expect(ranOn(from, 'after')).toBe(false);
  });
});
