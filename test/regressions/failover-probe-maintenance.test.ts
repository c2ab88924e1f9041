// A failover group's health probes kept their fixed timeout while the server announced a
// maintenance window, though the window relaxes the member's command deadlines (PROTOCOL.md §5):
// replies slowed by a planned maintenance failed the probes, and the group switched away from a
// member that was only being maintained. Now a probe has at least the member's relaxed timeout
// while a window is open on its data or probe connections, and its own timeout again once the
// window ends. Fake servers send the MIGRATING (Redis 7.0 cannot send maintenance notifications);
// the fault proxy slows the replies.
import { afterEach, expect, it } from 'vitest';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import { recordSwitches, useGroups } from '../failover/support.js';
import type { FakeServer } from '../kit/fake-server.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import { waitUntil } from '../kit/wait-until.js';

const groups = useGroups();
const fakes = useMaintenanceFakes();
const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
});

async function sendAll(server: FakeServer, bytes: string): Promise<void> {
  for (let index = 0; index < server.connectionCount; index++)
    await (await server.connection(index)).send(bytes);
}

function pings(server: FakeServer): number {
  return server.commands.filter(([name]) => name!.toUpperCase() === 'PING').length;
}

/** Waits until `server` has received `more` PINGs (probes) beyond `from`. */
async function probesAnswered(server: FakeServer, from: number, more: number): Promise<void> {
  await waitUntil(
    'probes',
    async () => pings(server) >= from + more || `${pings(server) - from} of ${more}`,
    {
      timeoutMs: 20_000,
      intervalMs: 10,
    },
  );
}

it('does not switch away from a member whose replies a maintenance window slows, and does once it ends', async () => {
  const east = await fakes.fake(maintenanceAnswer);
  const west = await fakes.fake(maintenanceAnswer);
  const proxy = await startFaultProxy({ target: { host: east.host, port: east.port } });
  proxies.push(proxy);
  const group = await groups.connect(
    { east: proxy.port, west: west.port },
    {
      healthCheck: { interval: 100, timeout: 200, failuresToSwitch: 2, successesToRecover: 2 },
      failbackDelay: 600_000,
      member: { maintenanceRelaxedTimeout: 3_000 },
    },
  );
  const switches = recordSwitches(group);
  // East's data connection and its probe connection.
  await probesAnswered(east, 0, 1);
  expect(east.connectionCount).toBe(2);
  await sendAll(east, push('MIGRATING', 1, 30));
  await group.client.ping(); // east's data connection read the MIGRATING first
  await proxy.setMode('delay', 600, 'toClient');
  // Probes answered in 600 ms: over their timeout (200 ms), within the relaxed one (3 s).
  await probesAnswered(east, pings(east), 5);
  expect(switches.all).toEqual([]);
  // The window ends: the same slow replies now fail the probes.
  await sendAll(east, push('MIGRATED', 1));
  const next = await switches.next();
  expect(next).toMatchObject({ from: 'east', to: 'west', reason: 'unhealthy' });
});
