// A MOVING hands over two connections of one endpoint when the client-side cache is on: the shared
// pipeline and the tracking connection. Each handoff closed the MOVING's maintenance window when it
// finished, so the tracking connection's (nothing in flight, done at once) ended the window while
// the shared pipeline still waited for a reply on its old socket: that command lost its relaxed
// deadline and failed at its own short timeout in the middle of the handoff (PROTOCOL.md §5 item 2:
// unrelax only after the swap). The window now closes when the endpoint's last handoff of that
// MOVING is done. The fake server sends the MOVING: Redis 7.0 cannot send maintenance notifications.
import { expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';
import type { FakeConnection } from '../kit/fake-server.js';
import { waitUntil } from '../kit/wait-until.js';

const fakes = useMaintenanceFakes();

function sent(connection: FakeConnection, name: string, arg?: string): boolean {
  return connection.commands.some(
    (args) => args[0]!.toUpperCase() === name && (arg === undefined || args[1] === arg),
  );
}

it('keeps the window open until the shared pipeline, not only the tracking connection, is handed over', async () => {
  const from = await fakes.fake(maintenanceAnswer);
  const to = await fakes.fake(maintenanceAnswer);
  const client = fakes.track(
    await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      clientSideCache: { maxEntries: 10 },
      reconnect: () => 5,
      commandTimeout: 300,
      maintenanceRelaxedTimeout: 3_000,
    }),
  );
  const all = async (): Promise<FakeConnection[]> =>
    Promise.all(Array.from({ length: from.connectionCount }, (_, index) => from.connection(index)));
  await waitUntil(
    'the tracking connection armed',
    async () => (await all()).some((c) => sent(c, 'CLIENT', 'TRACKING')) || 'no',
    {
      timeoutMs: 2_000,
      intervalMs: 5,
    },
  );
  const slow = client.send(['GET', 'silent:inflight']); // answered only when the test says so
  let shared: FakeConnection | undefined;
  await waitUntil(
    'the GET written',
    async () => {
      shared = (await all()).find((c) => sent(c, 'GET', 'silent:inflight'));
      return shared !== undefined || 'not yet';
    },
    { timeoutMs: 2_000, intervalMs: 5 },
  );
  const tracking = (await all()).find((c) => sent(c, 'CLIENT', 'TRACKING'))!;
  for (const connection of await all()) await connection.send(push('MOVING', 1, 30, `${to.host}:${to.port}`));
  await tracking.closed; // the tracking connection's handoff is done
  // Well past its own 300 ms: still waiting, under the relaxed 3 s, as the shared handoff is not done.
  expect(await outcomeWithin(slow, 1_000)).toBe('pending');
  await shared!.send('$15\r\nsilent:inflight\r\n');
  expect(await slow).toBe('silent:inflight');
  await shared!.closed;
  expect(await client.send(['GET', 'k'])).toBe('k');
  expect(to.connectionCount).toBe(2); // the shared pipeline and the tracking connection moved
});
