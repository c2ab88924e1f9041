// A failover group closed (or destroyed) while it was opening the data client of a member that
// had been down when it connected (its probes had just recovered it) left that open running:
// against a member black-holed right then (its connection accepted, its handshake never answered)
// the socket stayed, and kept the process alive, until the member's connectTimeout (20 s here),
// though the group drops the client once it comes, being closed. The member now makes its client
// before connecting it, and the group's close()/destroy() destroy it, which gives up the connect.
import { describe, it } from 'vitest';
import { useGroups } from '../failover/support.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { socketsTo } from '../kit/open-sockets.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe("closing a failover group while a recovered member's data client is being opened", () => {
  for (const how of ['close', 'destroy'] as const) {
    it(`${how}() gives that open up: no socket is left`, async () => {
      const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: west.port } });
      try {
        await proxy.setMode('refuse');
        let blackholed: Promise<void> | undefined;
        const group = await groups.connect(
          { east: east.port, west: proxy.port },
          {
            member: { connectTimeout: 20_000 },
            healthCheck: {
              interval: 100,
              timeout: 400,
              failuresToSwitch: 3,
              successesToRecover: 2,
              // Sends nothing: once west's probe client is open, west is healthy, black hole or not.
              probe: async (_client, member) => {
                if (member === 'west') blackholed ??= proxy.setMode('blackhole');
                await blackholed;
              },
            },
          },
        );
        const accepted = proxy.connectionsAccepted;
        await proxy.setMode('pass');
        // The probe client connects; the first probe turns the black hole on; the next one
        // recovers west and the group opens its data client, accepted and never answered.
        await proxy.waitForConnectionsAccepted(accepted + 2);
        await waitUntil('the data socket open', async () => socketsTo(proxy.port) >= 2 || 'not yet', {
          timeoutMs: 5_000,
          intervalMs: 5,
        });
        if (how === 'close') await group.close();
        else group.destroy();
        // The probe client's close waits for QUIT's answer at most its timeout (400 ms).
        await waitUntil('the sockets gone', async () => socketsTo(proxy.port) === 0 || 'still open', {
          timeoutMs: 2_000,
          intervalMs: 5,
        });
      } finally {
        await proxy.stop();
      }
    });
  }
});
