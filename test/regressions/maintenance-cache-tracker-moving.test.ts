// After a MOVING handoff, the client-side cache's tracking connection stayed on the old server
// (only the shared pipeline was handed over) until that server closed it: reads and everyone's
// writes went to the new server, whose invalidations no connection of the client heard, so the
// cache served stale values for as long as the old server kept the connection open. The tracking
// connection now follows the handoff to the announced endpoint, and the entries its old connection
// covered go when it is replaced (the new server never told it about writes made before it
// tracked there). The fake servers send the MOVING and the invalidations: Redis 7.0 cannot send
// maintenance notifications (PROTOCOL.md §5). Both fakes read one store: the data moved with it.
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { untilCached } from '../client/cache/support.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import type { FakeConnection, FakeServer } from '../kit/fake-server.js';
import { waitUntil } from '../kit/wait-until.js';

const kit = useMaintenanceFakes();

const store = new Map<string, string>();

/** GET answers from the shared store; the rest as maintenanceAnswer does. */
function fromStore(args: string[]): string | undefined {
  if (args[0]!.toUpperCase() !== 'GET') return maintenanceAnswer(args);
  const value = store.get(args[1]!);
  return value === undefined ? '_\r\n' : `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
}

async function connections(server: FakeServer): Promise<FakeConnection[]> {
  const all: FakeConnection[] = [];
  for (let index = 0; index < server.connectionCount; index++) all.push(await server.connection(index));
  return all;
}

function isTracking(connection: FakeConnection): boolean {
  return connection.commands.some((args) => args[0]!.toUpperCase() === 'CLIENT' && args[1] === 'TRACKING');
}

/** Another client wrote `key` on `server`: it tells its tracking connections (RESP3 push). */
async function writtenElsewhere(server: FakeServer, key: string, value: string): Promise<void> {
  store.set(key, value);
  const frame = `>2\r\n$10\r\ninvalidate\r\n*1\r\n$${key.length}\r\n${key}\r\n`;
  for (const connection of await connections(server))
    if (isTracking(connection)) await connection.send(frame);
}

describe('the client-side cache across a MOVING handoff', () => {
  it('tracks on the announced endpoint and serves no value the old server covered', async () => {
    store.clear();
    store.set('k', 'v1');
    const from = await kit.fake(fromStore);
    const to = await kit.fake(fromStore);
    const client = kit.track(
      await RespireClient.connect({
        endpoints: [{ host: from.host, port: from.port }],
        clientSideCache: { maxEntries: 10 },
        reconnect: () => 5,
      }),
    );
    expect(await untilCached(client, () => client.get('k'))).toBe('v1');
    // The server sends the MOVING on every connection that opted in.
    for (const connection of await connections(from))
      await connection.send(push('MOVING', 1, 30, `${to.host}:${to.port}`));
    await waitUntil(
      'every connection to the old server closed',
      async () => {
        const open = (await connections(from)).filter((connection) => !connection.socket.closed);
        return open.length === 0 || `${open.filter(isTracking).length} tracking of ${open.length} still open`;
      },
      { timeoutMs: 3000, intervalMs: 10 },
    );
    // Written on the new server before the tracking connection got there: the entry must be gone.
    await writtenElsewhere(to, 'k', 'v2');
    expect(await client.get('k')).toBe('v2');
    expect(await untilCached(client, () => client.get('k'))).toBe('v2');
    // Written on the new server now: its invalidation reaches the cache.
    await writtenElsewhere(to, 'k', 'v3');
    await waitUntil('the new value', async () => (await client.get('k')) === 'v3' || 'stale', {
      timeoutMs: 3000,
      intervalMs: 10,
    });
    expect(from.failures).toEqual([]);
    expect(to.failures).toEqual([]);
  });
});
