// Regression (issue 19 "Also"): commands of a transaction (`multi()`, a WATCH session's) and of a
// WATCH session published nothing on the `respire:command:*` channels, which every other command
// and batch entry does. Now each entry publishes `start` when `exec()` sends it and `end` or
// `error` as its own promise settles, `EXEC` stands for the whole `exec()`, and a WATCH session's
// commands (WATCH included) publish as the client's do.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, expect, it } from 'vitest';
import { type CommandDiagnostic, DiagnosticChannels } from '../../src/index.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** What the command channels publish from now on, as `start GET`, `error INCR WRONGTYPE`, … */
function listen(): string[] {
  const seen: string[] = [];
  for (const name of [
    DiagnosticChannels.commandStart,
    DiagnosticChannels.commandEnd,
    DiagnosticChannels.commandError,
  ]) {
    const listener = (message: unknown) => {
      const m = message as CommandDiagnostic;
      const event = name.slice('respire:command:'.length);
      seen.push(`${event} ${m.command}${m.errorType === undefined ? '' : ` ${m.errorType}`}`);
    };
    subscribe(name, listener);
    cleanups.push(() => void unsubscribe(name, listener));
  }
  return seen;
}

it('a transaction publishes each entry and its EXEC', async () => {
  const client = await clients.open();
  await client.set('diag:tx:text', 'a');
  const seen = listen();
  const tx = client.multi();
  tx.incr('diag:tx:n');
  tx.incr('diag:tx:text'); // fails inside EXEC: ERR not an integer
  await tx.exec();
  expect(seen).toEqual(['start INCR', 'start INCR', 'start EXEC', 'end INCR', 'error INCR ERR', 'end EXEC']);
});

it('a transaction refused at queue time publishes the errors its callers get', async () => {
  const client = await clients.open();
  const seen = listen();
  const tx = client.multi();
  tx.send(['SET', 'diag:tx:arity']); // wrong number of arguments: EXECABORT
  expect((await outcome(tx.exec())).error).toMatchObject({ code: 'EXECABORT' });
  expect(seen).toEqual(['start SET', 'start EXEC', 'error SET ERR', 'error EXEC EXECABORT']);
});

it('a WATCH session publishes its commands and its transaction', async () => {
  const client = await clients.open();
  await client.set('diag:watch:text', 'a');
  const seen = listen();
  const session = await client.watch('diag:watch:text');
  await session.get('diag:watch:text');
  await outcome(session.lpush('diag:watch:text', 'x'));
  const tx = session.multi();
  tx.set('diag:watch:text', 'b');
  expect(await tx.exec()).toEqual(['OK']);
  expect(seen).toEqual([
    'start WATCH',
    'end WATCH',
    'start GET',
    'end GET',
    'start LPUSH',
    'error LPUSH WRONGTYPE',
    'start SET',
    'start EXEC',
    'end SET',
    'end EXEC',
  ]);
});
