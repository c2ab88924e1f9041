// Regression: a command flushed after the server's FIN arrived but before the socket closed was
// counted as written. Node drops writes after the FIN (the socket's `write` becomes an EPIPE
// error on a later tick), so the command never left, yet it failed with `written: true` (and
// could not move: the Sentinel switch test `sentinel-blocking-moves` lost its transaction this
// way). The connection now ends at the FIN, so a later command waits for the reconnect and runs.
import type net from 'node:net';
import { expect, it } from 'vitest';
import type { RespireClient } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const { open } = useTestClients(useRedisServer());

function socketOf(client: RespireClient): net.Socket {
  return (client as unknown as { router: { node: { main: { current: { socket: net.Socket } } } } }).router
    .node.main.current.socket;
}

it('a command issued once the server has ended the connection is not lost as written', async () => {
  const redis = await open({ reconnect: () => 0 });
  const admin = await open();
  await redis.set('fin:k', 'before');
  const id = await redis.send(['CLIENT', 'ID']);
  const issued = new Promise<{ write: Promise<unknown> }>((resolve) => {
    // Runs after the connection's own 'end' listener, before the socket's 'close'.
    socketOf(redis).once('end', () => resolve({ write: redis.set('fin:k', 'after') }));
  });
  await admin.send(['CLIENT', 'KILL', 'ID', String(id)]);
  await expect((await issued).write).resolves.toBe('OK');
  expect(await admin.get('fin:k')).toBe('after');
});
