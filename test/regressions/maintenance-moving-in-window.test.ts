// A MOVING handoff opens a maintenance window of its own and closes it when the handoff is done.
// It closed it as a MIGRATED of the MOVING's seq would, which closes every window of that seq or
// earlier: a MIGRATING still open (an earlier seq) was closed with it, and reply deadlines went
// back to their normal length in the middle of the migration (PROTOCOL.md §5 item 1: windows are
// counted, each start needs its own end). Now the end of a handoff closes only its own window.
// The fake server sends the notifications: Redis 7.0 cannot send maintenance notifications.
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireMaintenanceTimeoutError } from '../../src/index.js';
import { push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';

const kit = useMaintenanceFakes();

describe('a MOVING handoff inside a MIGRATING window', () => {
  it('leaves the MIGRATING window open when the handoff ends', async () => {
    const from = await kit.fake();
    const to = await kit.fake();
    const client = kit.track(
      await RespireClient.connect({
        endpoints: [{ host: from.host, port: from.port }],
        commandTimeout: 150,
        maintenanceRelaxedTimeout: 5_000,
      }),
    );
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
