// A MOVING handoff opens a maintenance window of its own and closes it when the handoff is done.
// It closed it as a MIGRATED of the MOVING's seq would, which closes every window of that seq or
// earlier: a MIGRATING still open (an earlier seq) was closed with it, and reply deadlines went
// back to their normal length in the middle of the migration (PROTOCOL.md §5 item 1: windows are
// counted, each start needs its own end). Now the end of a handoff closes only its own window.
// The fake server sends the notifications: Redis 7.0 cannot send maintenance notifications.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient, RespireMaintenanceTimeoutError } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { type FakeServer, HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';

const fakes: FakeServer[] = [];
const clients: RespireClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

/** GET k answers k, except `silent:` keys, never answered. */
function answer(args: string[]): string | undefined {
  const name = args[0]!.toUpperCase();
  if (name === 'HELLO') return HELLO_3_REPLY;
  if (name === 'CLIENT' || name === 'QUIT') return '+OK\r\n';
  if (name === 'PING') return '+PONG\r\n';
  if (name === 'GET')
    return args[1]!.startsWith('silent:') ? undefined : `$${Buffer.byteLength(args[1]!)}\r\n${args[1]}\r\n`;
  return '-ERR unexpected\r\n';
}

async function fake(): Promise<FakeServer> {
  const started = await startFakeServer({ script: [], fallback: answer });
  fakes.push(started);
  return started;
}

function push(...items: (string | number)[]): string {
  const parts = items.map((item) =>
    typeof item === 'number' ? `:${item}\r\n` : `$${Buffer.byteLength(item)}\r\n${item}\r\n`,
  );
  return `>${items.length}\r\n${parts.join('')}`;
}

describe('a MOVING handoff inside a MIGRATING window', () => {
  it('leaves the MIGRATING window open when the handoff ends', async () => {
    const from = await fake();
    const to = await fake();
    const client = await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      commandTimeout: 150,
      maintenanceRelaxedTimeout: 5_000,
    });
    clients.push(client);
    await (await from.connection(0)).send(push('MIGRATING', 5, 30, '1'));
    await client.ping();
    await (await from.connection(0)).send(push('MOVING', 6, 30, `${to.host}:${to.port}`));
    // Read once the replacement is being opened: from then on, new commands wait for it.
    await to.connection(0);
    expect(await client.get('moved')).toBe('moved');
    expect(to.commands.some(([name, key]) => name === 'GET' && key === 'moved')).toBe(true);
    // The handoff ends once the old connection is closed.
    await (await from.connection(0)).closed;
    await client.ping();

    // MIGRATING 5 has not ended: past its own 150 ms, the command still waits.
    const slow = client.get('silent:1');
    expect(await outcomeWithin(slow, 1_000)).toBe('pending');
    slow.catch(() => undefined);

    await (await to.connection(0)).send(push('MIGRATED', 5, '1'));
    await client.ping().catch(() => undefined);
    const restored = await outcomeWithin(client.get('silent:2'), 1_000);
    expect(restored).not.toBe('pending');
    expect((restored as { error?: unknown }).error).not.toBeInstanceOf(RespireMaintenanceTimeoutError);
  });
});
