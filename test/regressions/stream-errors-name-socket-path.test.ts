// Regression (issue 17, Unix socket endpoints): errors name a socket endpoint by its path
// (describeEndpoint), but a streamed value's errors (streams/raw-exchange.ts) still formatted
// `host:port` by hand, so a lost connection read "connection to /run/redis.sock:0 lost": a port 0
// that does not exist, and a text that differs from every other error of the same endpoint.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { outcome, useConnect } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'respire-sock-'));
const socket = path.join(dir, 'redis.sock');
const server = useRedisServer({ configLines: [`unixsocket ${socket}`, 'unixsocketperm 700'] });
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const open = useConnect();

it('a streamed value lost on a Unix socket names the socket by its path', async () => {
  const redis = await open({ endpoints: [{ path: socket }], commandTimeout: 0 });
  const admin = await open({ endpoints: [`${server.host}:${server.port}`] });
  const length = 8 * 1024 * 1024;
  await redis.set('stream:sock', Buffer.alloc(length, 'v'));
  const stream = redis.getStream('stream:sock');
  await new Promise((resolve) => stream.once('data', resolve));
  stream.pause();
  const failed = outcome(stream.toArray());
  // Every client but the admin: the stream's dedicated connection (and the shared one) is cut.
  await admin.send(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
  stream.resume();
  const { error } = await failed;
  expect(error).toBeInstanceOf(RespireConnectionError);
  expect((error as RespireConnectionError).endpoint?.path).toBe(socket);
  expect((error as Error).message).toBe(`connection to ${socket} lost during a streamed value`);
});
