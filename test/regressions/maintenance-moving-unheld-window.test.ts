// A MOVING seen only on a connection that is not handed over (a dedicated or subscriber connection,
// §5 item 4; the shared pipeline's copy missed, e.g. while it reconnected) opened a maintenance
// window nothing ended: no handoff was under way to close it, so every command of the endpoint had
// the relaxed deadline until the backstop, three times the relaxed timeout or the announced time.
// Now such a window ends at the announced time, by which the endpoint has gone; a handoff under way
// still holds it until it is done. The fake server sends the MOVING: Redis 7.0 cannot send
// maintenance notifications (PROTOCOL.md §5).
import { expect, it } from 'vitest';
import { RespireClient, RespireMaintenanceTimeoutError, RespireTimeoutError } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';

const fakes = useMaintenanceFakes();

/** Answers BLPOP at once with `l`/`v`, the rest as maintenanceAnswer does. */
function withBlpop(args: string[]): string | undefined {
  return args[0]!.toUpperCase() === 'BLPOP' ? '*2\r\n$1\r\nl\r\n$1\r\nv\r\n' : maintenanceAnswer(args);
}

it('ends the window of a MOVING no handoff holds at its announced time', async () => {
  const from = await fakes.fake(withBlpop);
  const to = await fakes.fake(withBlpop);
  // Real time, moved on by the test past the announced time (not the backstop) at once.
  let skippedMs = 0;
  const clock = { now: () => performance.now() + skippedMs };
  const client = fakes.track(
    await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      reconnect: () => 5,
      commandTimeout: 200,
      maintenanceRelaxedTimeout: 3_000,
      clock,
    }),
  );
  expect(await client.send(['BLPOP', 'l', '0'])).toEqual(['l', 'v']);
  const dedicated = await from.connection(1);
  expect(dedicated.commands.some(([name]) => name === 'BLPOP')).toBe(true);
  await dedicated.send(push('MOVING', 1, 1, `${to.host}:${to.port}`));
  // The window is open: a silent GET is relaxed to 3 s, and says so when it times out.
  const during = client.send(['GET', 'silent:during']);
  expect(await outcomeWithin(during, 600)).toBe('pending');
  skippedMs = 2_000; // past the announced 1 s, well short of the 9 s backstop
  const after = client.send(['GET', 'silent:after']);
  const outcome = await outcomeWithin(after, 1_000);
  expect(outcome).toMatchObject({ error: expect.any(RespireTimeoutError) });
  expect((outcome as { error: unknown }).error).not.toBeInstanceOf(RespireMaintenanceTimeoutError);
  await expect(during).rejects.toBeInstanceOf(RespireTimeoutError);
});
