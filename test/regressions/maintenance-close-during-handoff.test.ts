// close() during a MOVING handoff waited for the handoff to end: the commands the handoff held
// unwritten stayed held (close() waits for them to be written before it QUITs), so close() took as
// long as the replacement's handshake (up to connectTimeout), and for ever when a reply with no
// deadline (BLPOP 0) was in flight on the old connection, since the handoff waits for it before
// swapping: the held commands never went out and close() never returned. Now a closing channel
// writes what is queued on its connection at once, pause or not; the handoff then finds the
// channel closing and drops its replacement; one still being opened is given up at once (it was
// left open until connectTimeout). The fake servers send the MOVING and hold the
// replacement's handshake: Redis 7.0 cannot send maintenance notifications.
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';
import type { FakeServer } from '../kit/fake-server.js';
import { waitUntil } from '../kit/wait-until.js';

const kit = useMaintenanceFakes();

/** A server whose first connection's handshake waits until `release()`. */
async function heldServer(): Promise<{ server: FakeServer; release: () => void }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = await kit.fake(undefined, (index) => (index === 0 ? [{ waitFor: held }] : []));
  return { server, release };
}

/**
 * Answers as maintenanceAnswer until a `GET silent:*` (a command with no deadline that the server
 * is still running), then nothing more: as Redis, it answers a connection's commands in order.
 */
function stuckAfterSilent(): (args: string[]) => string | undefined {
  let stuck = false;
  return (args) => {
    stuck ||= args[0]?.toUpperCase() === 'GET' && args[1]!.startsWith('silent:');
    return stuck ? undefined : maintenanceAnswer(args);
  };
}

async function open(from: FakeServer): Promise<RespireClient> {
  return kit.track(
    await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      reconnect: () => 5,
      commandTimeout: 300,
      maintenanceRelaxedTimeout: 400,
      connectTimeout: 20_000,
    }),
  );
}

async function moving(from: FakeServer, to: FakeServer): Promise<void> {
  await (await from.connection(0)).send(push('MOVING', 1, 30, `${to.host}:${to.port}`));
  await to.connection(0); // the handoff is under way: new writes are held
}

describe('close() during a MOVING handoff', () => {
  it('writes the held commands on the old connection and returns at once', async () => {
    const from = await kit.fake();
    const { server: to, release } = await heldServer();
    const client = await open(from);
    await moving(from, to);
    const held = client.get('held');
    expect(await outcomeWithin(held, 100)).toBe('pending');
    const closed = client.close();
    expect(await outcomeWithin(closed, 2_000)).toEqual({ value: undefined });
    expect(await held).toBe('held');
    // The replacement still being opened is given up, not left open until connectTimeout (20 s).
    expect(await outcomeWithin((await to.connection(0)).closed, 2_000)).not.toBe('pending');
    release();
  });

  it('returns with a reply that has no deadline in flight on the old connection', async () => {
    const from = await kit.fake(stuckAfterSilent());
    const { server: to, release } = await heldServer();
    const client = await open(from);
    // Written before the MOVING: never answered (maintenanceAnswer), no deadline of its own.
    const silent = client.get('silent:forever', { timeout: 0 });
    silent.catch(() => undefined);
    await waitUntil(
      'the silent GET written',
      async () => from.commands.some(([, key]) => key === 'silent:forever') || 'not yet',
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    await moving(from, to);
    release(); // the replacement gets ready: the handoff waits for the silent reply to swap
    const held = client.get('held');
    const closed = client.close();
    // close() waits for the replies owed until their deadlines (relaxed to 400 ms), then fails them.
    expect(await outcomeWithin(closed, 3_000)).toEqual({ value: undefined });
    await expect(held).rejects.toMatchObject({ written: true });
    await expect(silent).rejects.toMatchObject({ written: true });
  });
});
