// A failover group closed (or destroyed) while a member's health probe was opening that member's
// probe client left the open running: against a black-holed member (its connection accepted, its
// handshake never answered) the socket stayed, and kept the process alive, until the member's
// connectTimeout (20 s here), though the prober drops the client once it comes, being closed.
// The probe client (the member had been refused until then, so it had none yet) is now made
// before it connects, and close()/destroy() destroy it, which gives up its connect at once.
import { describe, it } from 'vitest';
import { useGroups } from '../failover/support.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { socketsTo } from '../kit/open-sockets.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe("closing a failover group while a member's probe client is being opened", () => {
  for (const how of ['close', 'destroy'] as const) {
    it(`${how}() gives that open up: no socket is left`, async () => {
      const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: west.port } });
      try {
        await proxy.setMode('refuse');
        const group = await groups.connect(
          { east: east.port, west: proxy.port },
          { member: { connectTimeout: 20_000 } },
        );
        // West refused its data client and its first probes; now its probe client's next open
        // is accepted and never answered.
        const accepted = proxy.connectionsAccepted;
        await proxy.setMode('blackhole');
        await proxy.waitForConnectionsAccepted(accepted + 1);
        await waitUntil('the probe socket open', async () => socketsTo(proxy.port) >= 1 || 'not yet', {
          timeoutMs: 5_000,
          intervalMs: 5,
        });
        if (how === 'close') await group.close();
        else group.destroy();
        await waitUntil('the probe socket gone', async () => socketsTo(proxy.port) === 0 || 'still open', {
          timeoutMs: 1_000,
          intervalMs: 5,
        });
      } finally {
        await proxy.stop();
      }
    });
  }
});
