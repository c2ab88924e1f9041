// A MOVING handoff whose old connection was reset while the replacement was still being opened
// dropped the MOVING altogether: the channel reconnected to its configured endpoint (the one the
// MOVING said goes away), and the replacement to the announced endpoint was then thrown away
// because the connection it was to replace was no longer the channel's. Now the handoff replaces
// the connection the channel reconnected with instead (PROTOCOL.md §5 item 2; issue 14). The fake
// server sends the MOVING: Redis 7.0 cannot send maintenance notifications.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { type FakeServer, HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';
import { waitUntil } from '../kit/wait-until.js';

const fakes: FakeServer[] = [];
const clients: RespireClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

function answer(args: string[]): string | undefined {
  const name = args[0]!.toUpperCase();
  if (name === 'HELLO') return HELLO_3_REPLY;
  if (name === 'CLIENT' || name === 'QUIT') return '+OK\r\n';
  if (name === 'PING') return '+PONG\r\n';
  if (name === 'GET') return `$${Buffer.byteLength(args[1]!)}\r\n${args[1]}\r\n`;
  return '-ERR unexpected\r\n';
}

/** A server whose connections numbered in `held` wait to answer their handshake until released. */
async function heldServer(
  held: readonly number[],
): Promise<{ server: FakeServer; release: (index: number) => void }> {
  const releases = new Map<number, () => void>();
  const waits = new Map<number, Promise<void>>();
  for (const index of held) waits.set(index, new Promise<void>((resolve) => releases.set(index, resolve)));
  const server = await startFakeServer({
    script: (index) => {
      const wait = waits.get(index);
      return wait === undefined ? [] : [{ waitFor: wait }];
    },
    fallback: answer,
  });
  fakes.push(server);
  return { server, release: (index) => releases.get(index)!() };
}

function moving(to: FakeServer): string {
  const target = `${to.host}:${to.port}`;
  return `>4\r\n$6\r\nMOVING\r\n:1\r\n:30\r\n$${target.length}\r\n${target}\r\n`;
}

/** A client on `from` whose first connection got a MOVING to `to` and was then reset. */
async function resetDuringHandoff(from: FakeServer, to: FakeServer): Promise<RespireClient> {
  const client = await RespireClient.connect({
    endpoints: [{ host: from.host, port: from.port }],
    reconnect: () => 5,
  });
  clients.push(client);
  const first = await from.connection(0);
  await first.send(moving(to));
  await to.connection(0);
  // The old connection is reset mid-handoff; the channel reconnects to its configured endpoint.
  first.socket.destroy();
  await from.connection(1);
  return client;
}

function ranOn(server: FakeServer, key: string): boolean {
  return server.commands.some(([name, arg]) => name === 'GET' && arg === key);
}

describe('a MOVING handoff while the old connection is reset', () => {
  it('makes the replacement the reconnection when it is ready first', async () => {
    const { server: from } = await heldServer([1]);
    const { server: to, release } = await heldServer([0]);
    const client = await resetDuringHandoff(from, to);
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
      'the reconnection handshake on the configured endpoint',
      async () =>
        (await from.connection(1)).commands.some(([name]) => name === 'CLIENT') ? true : 'not yet',
      { timeoutMs: 5_000 },
    );
    release(0);
    expect(await client.get('after')).toBe('after');
    expect(ranOn(to, 'after')).toBe(true);
    expect(ranOn(from, 'after')).toBe(false);
  });
});
