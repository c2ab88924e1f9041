// Regression (code review): Command.deadline holds the acquire deadline while a command waits for a connection and
// the reply deadline once written (command.ts). connection.ts track() overwrites it only when the
// command has a reply deadline, so a `timeout: 0` (or blocking) command written after waiting
// keeps its stale acquire deadline, and the connection's deadline scan (onDeadline) then times it
// out, as "no reply within 0 ms", and replaces the connection, although it has no deadline.
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { outcome } from '../client/support.js';
import { type FakeServer, startFakeServer } from '../kit/fake-server.js';

let server: FakeServer | undefined;
let client: RespireClient | undefined;
afterEach(async () => {
  client?.destroy();
  await server?.close();
});

it('a timeout: 0 command that waited for a reconnect keeps no reply deadline', async () => {
  let release!: () => void;
  const handshakeHeld = new Promise<void>((resolve) => {
    release = resolve;
  });
  server = await startFakeServer({
    // The reconnect's handshake waits for the test, so commands queue while disconnected.
    script: (index) => (index === 1 ? [{ waitFor: handshakeHeld }] : []),
    fallback: (args) => {
      if (args[0]?.toUpperCase() === 'GET') return args[1] === 'slow' ? undefined : '$1\r\nx\r\n';
      return '+OK\r\n';
    },
  });
  client = await RespireClient.connect({
    endpoints: [{ host: server.host, port: server.port }],
    commandTimeout: 400,
    acquireTimeout: 300,
    reconnect: () => 0,
  });
  (await server.connection(0)).socket.destroy();
  const second = await server.connection(1); // the client is reconnecting: no connection now
  const fast = client.get('fast'); // reply deadline 400 ms from its write
  const slow = outcome(client.send(['GET', 'slow'], { timeout: 0 })); // no reply deadline
  release();
  expect(await fast).toBe('x');
  // Past fast's reply deadline the connection's deadline timer fires and scans what is in flight.
  const early = await Promise.race([slow, delay(700).then(() => 'still pending' as const)]);
  expect(early).toBe('still pending');
  await second.send('$1\r\ny\r\n');
  expect(await slow).toEqual({ value: 'y' });
});
