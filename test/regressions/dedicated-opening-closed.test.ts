// close() and destroy() while a blocking command (or watch()) was opening its dedicated
// connection to a black-holed endpoint left that open running: the pool only knew its idle and
// lent connections, so the socket stayed, and kept the process alive, until connectTimeout (20 s
// here), though the pool drops the connection once it comes, being closed. The pool now keeps the
// connections it is opening too and destroys them, which aborts their connect (the channel's
// closing signal). Shown with the fault proxy (black hole) and this process's socket handles.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { socketsTo } from '../kit/open-sockets.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const server = useRedisServer();
const clients = useTestClients(server, { connectTimeout: 20_000, commandTimeout: 200 });

describe('a dedicated connection being opened to a black-holed endpoint', () => {
  for (const how of ['close', 'destroy'] as const) {
    for (const path of ['blpop', 'watch'] as const) {
      it(`is given up by ${how}() (${path}): no socket is left`, async () => {
        const { proxy, client } = await clients.proxied();
        expect(await client.ping()).toBe('PONG');
        await proxy.setMode('blackhole');
        const accepted = proxy.connectionsAccepted;
        const pending = (path === 'blpop' ? client.blpop(['dedicated:list'], 0) : client.watch('k')).then(
          () => 'resolved',
          (error: unknown) => error,
        );
        await proxy.waitForConnectionsAccepted(accepted + 1);
        if (how === 'close') await client.close();
        else client.destroy();
        expect(await pending).toBeInstanceOf(RespireConnectionError);
        await waitUntil('the sockets gone', async () => socketsTo(proxy.port) === 0 || 'still open', {
          timeoutMs: 1_500,
          intervalMs: 5,
        });
      });
    }
  }
});
