// Two MOVINGs on one channel, the second arriving while the first handoff is still under way,
// shared one pause flag and both ran to the end: the first to finish resumed writes for both, so
// commands went out on a connection the second MOVING said goes away; and when the second finished
// first, the first then replaced its connection with one to the older, stale endpoint. Now each
// handoff holds its own pause (writes resume when none holds one) and the latest MOVING wins: an
// older handoff that is overtaken closes its replacement unused (PROTOCOL.md §5 item 2). The fake
// server sends the MOVINGs: Redis 7.0 cannot send maintenance notifications.
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';
import type { FakeServer } from '../kit/fake-server.js';

const kit = useMaintenanceFakes();

/** A server whose first connection waits to answer its handshake until `release()`. */
async function heldServer(): Promise<{ server: FakeServer; release: () => void }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = await kit.fake(undefined, (index) => (index === 0 ? [{ waitFor: held }] : []));
  return { server, release };
}

function moving(seq: number, to: FakeServer): string {
  return push('MOVING', seq, 30, `${to.host}:${to.port}`);
}

function ranOn(server: FakeServer, key: string): boolean {
  return server.commands.some(([name, arg]) => name === 'GET' && arg === key);
}

/** A client on `from` that got MOVING 1 to `first`, then MOVING 2 to `second` while the first handoff was opening. */
async function twoMovings(from: FakeServer, first: FakeServer, second: FakeServer): Promise<RespireClient> {
  const client = kit.track(
    // A long connect timeout: the overtaken handoff's replacement stays unanswered meanwhile.
    await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      reconnect: () => 5,
      connectTimeout: 30_000,
    }),
  );
  const old = await from.connection(0);
  await old.send(moving(1, first));
  await first.connection(0);
  await old.send(moving(2, second));
  await second.connection(0);
  return client;
}

describe('a second MOVING while a handoff is under way', () => {
  it('holds writes until the second handoff is done, though the first finishes earlier', async () => {
    const from = await kit.fake();
    const { server: first, release: releaseFirst } = await heldServer();
    const { server: second, release: releaseSecond } = await heldServer();
    const client = await twoMovings(from, first, second);
    releaseFirst();
    // The first handoff is over: it either took over (and closed the old connection) or gave up.
    await Promise.race([(await from.connection(0)).closed, (await first.connection(0)).closed]);
    const mid = client.get('mid');
    releaseSecond();
    expect(await mid).toBe('mid');
    expect(ranOn(second, 'mid')).toBe(true);
    expect(ranOn(first, 'mid')).toBe(false);
  });

  it('ends on the latest endpoint when the first handoff finishes last', async () => {
    const from = await kit.fake();
    const { server: first, release: releaseFirst } = await heldServer();
    const second = await kit.fake();
    const client = await twoMovings(from, first, second);
    // The second handoff takes over; the old connection is closed.
    await (await from.connection(0)).closed;
    // Writes resume with the second handoff: the overtaken one, still opening, holds nothing back.
    expect(await outcomeWithin(client.get('moved'), 5_000)).toEqual({ value: 'moved' });
    expect(ranOn(second, 'moved')).toBe(true);
    releaseFirst();
    await (await first.connection(0)).closed;
    // The overtaken handoff must not go on to replace the new connection with one to its endpoint
    // (an absence: bounded wait for a connection that must not come).
    expect(await outcomeWithin(first.connection(1), 1_000)).toBe('pending');
    expect(await client.get('after')).toBe('after');
    expect(ranOn(second, 'after')).toBe(true);
    expect(ranOn(first, 'after')).toBe(false);
  });
});
