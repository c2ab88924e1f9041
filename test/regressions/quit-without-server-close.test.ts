// Regression: close() sent QUIT and, once the server answered it, half-closed the socket and waited
// for 'close'. A server that answers QUIT but keeps its side open (one that allows half-open
// connections, as a proxy may) never closes it, so close() never resolved, past every deadline:
// QUIT's reply deadline only covers the reply. Once QUIT is answered the connection has no more
// use, so the client closes it itself. A fake server: a redis-server closes after QUIT.
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { HELLO_3_REPLY } from '../kit/fake-server.js';
import { readRequest } from '../kit/resp-wire.js';

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** Answers every command (QUIT with +OK) and never closes a connection, not even on the client's FIN. */
async function neverClosingServer(): Promise<{ port: number; sockets: net.Socket[] }> {
  const sockets: net.Socket[] = [];
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.push(socket);
    let received = Buffer.alloc(0);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (let request = readRequest(received); request !== undefined; request = readRequest(received)) {
        received = received.subarray(request.end);
        const name = request.args[0]!.toString().toUpperCase();
        socket.write(name === 'HELLO' ? HELLO_3_REPLY : name === 'PING' ? '+PONG\r\n' : '+OK\r\n');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, sockets };
}

it('close() finishes once QUIT is answered, though the server keeps the connection open', async () => {
  const { port, sockets } = await neverClosingServer();
  const redis = await RespireClient.connect({ endpoints: [`127.0.0.1:${port}`], commandTimeout: 1000 });
  expect(await redis.ping()).toBe('PONG');
  // QUIT's own deadline is 1 s (commandTimeout); 5 s is the contract's bound with slack.
  const closed = await outcomeWithin(redis.close(), 5000);
  if (closed === 'pending') redis.destroy();
  expect(closed).toEqual({ value: undefined });
  expect(sockets.length).toBe(1);
});
