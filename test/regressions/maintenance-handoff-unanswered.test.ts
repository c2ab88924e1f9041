// A MOVING handoff waits for the replies still owed on the old socket before it swaps, and a
// command with no reply deadline (`timeout: 0`) that the server never answers stalled it for ever:
// the commands it held unwritten never went out, on either connection. Now the wait lasts at most
// the announced time or the relaxed timeout, whichever is longer (README "Server maintenance");
// then the replacement takes over, the commands held go out on it, and the replies still owed on
// the old socket fail with a RespireMaintenanceTimeoutError (written: they are never sent again).
// The fake servers send the MOVING: Redis 7.0 cannot send maintenance notifications.
import { expect, it } from 'vitest';
import { RespireClient, RespireMaintenanceTimeoutError } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';
import { waitUntil } from '../kit/wait-until.js';

const kit = useMaintenanceFakes();

it('fails the reply still owed past the bounded wait and moves on to the replacement', async () => {
  // As Redis, the old server answers a connection's commands in order: nothing after the silent one.
  let stuck = false;
  const from = await kit.fake((args) => {
    stuck ||= args[0]?.toUpperCase() === 'GET' && args[1]!.startsWith('silent:');
    return stuck ? undefined : maintenanceAnswer(args);
  });
  const to = await kit.fake();
  const client = kit.track(
    await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      reconnect: () => 5,
      maintenanceRelaxedTimeout: 300,
    }),
  );
  const silent = client.get('silent:forever', { timeout: 0 });
  await waitUntil(
    'the silent GET written',
    async () => from.commands.some(([, key]) => key === 'silent:forever') || 'not yet',
    { timeoutMs: 5_000, intervalMs: 5 },
  );
  const announced = performance.now();
  // Announced time 1 s, relaxed timeout 300 ms: the handoff waits 1 s at most.
  await (await from.connection(0)).send(push('MOVING', 1, 1, `${to.host}:${to.port}`));
  await to.connection(0);
  const later = client.get('later');
  const owed = await outcomeWithin(silent, 5_000);
  expect(owed).not.toBe('pending');
  const error = (owed as { error?: unknown }).error;
  expect(error).toBeInstanceOf(RespireMaintenanceTimeoutError);
  expect(error).toMatchObject({ written: true, during: 'command', timeoutMs: 1_000 });
  expect(performance.now() - announced).toBeGreaterThanOrEqual(990);
  expect(await outcomeWithin(later, 2_000)).toEqual({ value: 'later' });
  expect(to.commands.some(([, key]) => key === 'later')).toBe(true);
  expect(to.commands.some(([, key]) => key === 'silent:forever')).toBe(false);
  expect(from.commands.some(([, key]) => key === 'later')).toBe(false);
  expect(await client.get('next')).toBe('next');
});
