// Regression (code review): dedicated-pool.ts keeps released connections in `idle` without watching them. One that
// the server closes while idle (timeout, CLIENT KILL, restart) stays there as a closed Channel
// (reconnect: false), and the next blocking command borrows it and fails with "the client is
// closed", although the client is open and a fresh connection could be had.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { expect, it } from 'vitest';
import { DiagnosticChannels } from '../../src/client/diagnostics.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

/** Resolves when a connection of `role` reports its close. */
function nextClose(role: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (message: unknown): void => {
      if ((message as { role: string }).role !== role) return;
      unsubscribe(DiagnosticChannels.connectionClose, listener);
      resolve();
    };
    subscribe(DiagnosticChannels.connectionClose, listener);
  });
}

it('a blocking command does not borrow an idle dedicated connection the server closed', async () => {
  const client = await clients.open();
  await client.send(['DEL', 'review:idle']);
  await client.send(['RPUSH', 'review:idle', 'a', 'b']);
  expect(await client.send(['BLPOP', 'review:idle', '1'])).toEqual(['review:idle', 'a']);
  // The dedicated connection is idle in the pool now; the server drops it.
  const list = String(await client.send(['CLIENT', 'LIST']));
  const line = list.split('\n').find((entry) => / cmd=blpop /.test(entry));
  expect(line).toBeDefined();
  const id = /(?:^|\s)id=(\d+)/.exec(line!)![1]!;
  const closed = nextClose('dedicated');
  expect(await client.send(['CLIENT', 'KILL', 'ID', id])).toBe(1);
  await closed;
  const second = await outcome(client.send(['BLPOP', 'review:idle', '1']));
  expect(second.error).toBeUndefined();
  expect(second.value).toEqual(['review:idle', 'b']);
});
