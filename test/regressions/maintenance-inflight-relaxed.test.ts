// Issue 14 review (PROTOCOL.md §5: MIGRATING/FAILING_OVER relax command deadlines): a command
// already written when a maintenance window opened kept the reply deadline it got at its write, so
// it failed at its own short timeout in the middle of the migration; only commands written later,
// and the connection's silence rule, were relaxed. Now a deadline that passes during a window is
// moved to the relaxed one, counted from the command's write. The fake server sends the MIGRATING
// (Redis 7.0 cannot send maintenance notifications).
import { expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';
import { waitUntil } from '../kit/wait-until.js';

const fakes = useMaintenanceFakes();

it('a command in flight when MIGRATING arrives gets the relaxed deadline too', async () => {
  const target = await fakes.fake(maintenanceAnswer);
  const client = fakes.track(
    await RespireClient.connect({
      endpoints: [{ host: target.host, port: target.port }],
      reconnect: () => 5,
      commandTimeout: 300,
      maintenanceRelaxedTimeout: 3_000,
    }),
  );
  const connection = await target.connection(0);
  const slow = client.get('silent:inflight'); // never answered by the fake until the test says so
  await waitUntil(
    'the GET written',
    async () => (connection.commands.some((args) => args[1] === 'silent:inflight') ? true : 'not yet'),
    { timeoutMs: 2_000, intervalMs: 5 },
  );
  await connection.send(push('MIGRATING', 1, 30, '1'));
  // Well past its own 300 ms: still waiting, under the relaxed 3 s.
  expect(await outcomeWithin(slow, 1_000)).toBe('pending');
  await connection.send('$15\r\nsilent:inflight\r\n');
  expect(await slow).toBe('silent:inflight');
});
