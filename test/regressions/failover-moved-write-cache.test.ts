// Read your writes across a failover switch: a write issued on the group client drops its keys from
// the active member's cache as it is sent and again as it settles (cache/client-side-cache.ts), so
// a read right after its reply never finds the value it overwrote, whenever the tracking
// connection's invalidation arrives. A write a switch moved to the new member dropped its keys from
// the old member's cache only: the new member's cache kept its entry, and a read after the write's
// reply was answered the overwritten value until the new member's invalidation arrived. Fake
// servers for the timing: the new member's invalidation is sent only after the read (Redis sends it
// on another socket than the write's reply, so it can arrive after it; a real server cannot be made
// to send it late on cue), and east's handoff that holds the write unsent is a MOVING (Redis 7.0
// cannot send maintenance notifications).
import { expect, it } from 'vitest';
import type { RespireFailoverGroup } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { outcomeWithin } from '../client/support.js';
import { useGroups } from '../failover/support.js';
import type { FakeServer } from '../kit/fake-server.js';
import { waitUntil } from '../kit/wait-until.js';

const groups = useGroups();
const fakes = useMaintenanceFakes();

/** A fake member holding `store`: GET and SET on it, the rest as maintenanceAnswer does. */
function member(store: Map<string, string>): (args: string[]) => string | undefined {
  let queued = false; // inside MULTI (one client writes at a time here)
  return (args) => {
    const name = args[0]!.toUpperCase();
    if (name === 'MULTI') {
      queued = true;
      return '+OK\r\n';
    }
    if (name === 'EXEC') {
      queued = false;
      return '*1\r\n+OK\r\n';
    }
    if (name === 'SET') {
      store.set(args[1]!, args[2]!);
      return queued ? '+QUEUED\r\n' : '+OK\r\n';
    }
    if (name !== 'GET') return maintenanceAnswer(args);
    const value = store.get(args[1]!);
    return value === undefined ? '_\r\n' : `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
  };
}

async function sendAll(server: FakeServer, bytes: string): Promise<void> {
  for (let index = 0; index < server.connectionCount; index++)
    await (await server.connection(index)).send(bytes);
}

const WRITES: [string, (group: RespireFailoverGroup) => Promise<unknown>][] = [
  ['a write', (group) => group.client.set('k', 'v2')],
  [
    'a transaction',
    (group) => {
      const tx = group.client.multi();
      void tx.set('k', 'v2');
      return tx.exec();
    },
  ],
];

/** Connections of `server` that ran their handshake (the last step: SETINFO LIB-VER). */
async function setUp(server: FakeServer): Promise<number> {
  let count = 0;
  for (let index = 0; index < server.connectionCount; index++) {
    const { commands } = await server.connection(index);
    if (commands.some((args) => args[1] === 'SETINFO' && args[2] === 'LIB-VER')) count++;
  }
  return count;
}

it.each(WRITES)("%s moved by a switch drops its keys from the new member's cache", async (_, writeK) => {
  const westStore = new Map([['k', 'v1']]);
  const east = await fakes.fake(member(new Map()));
  const west = await fakes.fake(member(westStore));
  const hanging = await fakes.fake(() => undefined); // accepts, never answers: the handoff waits
  const group = await groups.connect(
    { east: east.port, west: west.port },
    {
      failbackDelay: 600_000,
      healthCheck: { interval: 100, timeout: 5_000, failuresToSwitch: 100, successesToRecover: 2 },
      member: { clientSideCache: { maxEntries: 10 } },
    },
  );
  // West's cache holds k = v1 (its tracking connection armed: a read is answered from it).
  group.switchTo('west');
  const { hits } = group.client.cacheStats!;
  for (let read = 0; group.client.cacheStats!.hits === hits && read < 200; read++)
    expect(await group.client.get('k')).toBe('v1');
  expect(group.client.cacheStats!.hits).toBeGreaterThan(hits);
  group.switchTo('east');
  // East's connections stop writing (handed over to an endpoint that never answers): the write
  // waits. Each of them once set up: the member's and the probe client's shared and tracking ones.
  await waitUntil('four connections set up', async () => (await setUp(east)) === 4 || 'not yet', {
    timeoutMs: 10_000,
    intervalMs: 5,
  });
  await sendAll(east, push('MOVING', 1, 30, `${hanging.host}:${hanging.port}`));
  // All four: a MOVING read right behind a connection's last handshake reply was once dropped
  // (maintenance-moving-in-handshake.test.ts), and one handoff then never dialled.
  await waitUntil('the handoffs under way', async () => hanging.connectionCount >= 4 || 'not yet', {
    timeoutMs: 10_000,
    intervalMs: 5,
  });
  const write = writeK(group);
  expect(await outcomeWithin(write, 300)).toBe('pending');
  group.switchTo('west');
  expect(await write).toBeDefined();
  expect(westStore.get('k')).toBe('v2');
  // West's invalidation has not arrived yet: the read must not be answered the overwritten value.
  expect(await group.client.get('k')).toBe('v2');
});
