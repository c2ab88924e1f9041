// close() and destroy() while the channel's ordinary reconnect was dialling a black-holed endpoint
// left that dial running: its socket (and with it the process) stayed alive until connectTimeout
// (20 s here), though the channel drops the connection once it comes, being closed. The handoff's
// replacement was already given up on close (maintenance-close-during-handoff); the reconnect and
// the first connect now take the same abort signal. Shown with the fault proxy (black hole: the
// connection is accepted, the handshake never answered) and this process's own socket handles.
import { describe, expect, it } from 'vitest';
import { type RespireClient, RespireConnectionError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import { socketsTo } from '../kit/open-sockets.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const server = useRedisServer();
const clients = useTestClients(server, { connectTimeout: 20_000, reconnect: () => 5 });

/** A client through `proxy` whose reconnect is now dialling into a black hole. */
async function dialling(): Promise<{ proxy: FaultProxy; client: RespireClient }> {
  const { proxy, client } = await clients.proxied();
  expect(await client.ping()).toBe('PONG');
  await proxy.setMode('blackhole');
  const accepted = proxy.connectionsAccepted;
  await proxy.closeAllConnections();
  await proxy.waitForConnectionsAccepted(accepted + 1);
  await waitUntil('the reconnect socket open', async () => socketsTo(proxy.port) === 1 || 'not yet', {
    timeoutMs: 5_000,
    intervalMs: 5,
  });
  return { proxy, client };
}

describe('a reconnect dialling a black-holed endpoint', () => {
  it('is given up by close(): no socket is left', async () => {
    const { proxy, client } = await dialling();
    const queued = client.get('queued');
    await client.close();
    await expect(queued).rejects.toBeInstanceOf(RespireConnectionError);
    await waitUntil('the reconnect socket gone', async () => socketsTo(proxy.port) === 0 || 'still open', {
      timeoutMs: 1_000,
      intervalMs: 5,
    });
  });

  it('is given up by destroy(): no socket is left', async () => {
    const { proxy, client } = await dialling();
    client.destroy();
    await waitUntil('the reconnect socket gone', async () => socketsTo(proxy.port) === 0 || 'still open', {
      timeoutMs: 1_000,
      intervalMs: 5,
    });
  });
});
