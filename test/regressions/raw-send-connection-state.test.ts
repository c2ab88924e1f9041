// Regression (issue 19 #1): a raw `send(['UNSUBSCRIBE'])` on the shared RESP3 connection took the
// next caller's reply (its confirmation is a push, never a reply), so from then on every caller got
// the previous caller's value; a raw SUBSCRIBE put the shared RESP2 connection in subscriber mode;
// a raw SELECT or CLIENT SETNAME was lost on the next reconnect. `send` now refuses every command
// that changes the connection's state behind the pipeline's back (README "Commands `send` refuses").
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireUnsupportedCommandError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

const REFUSED: readonly (readonly string[])[] = [
  ['UNSUBSCRIBE'],
  ['SUBSCRIBE', 'raw:news'],
  ['psubscribe', 'raw:*'],
  ['SSUBSCRIBE', 'raw:shard'],
  ['PUNSUBSCRIBE'],
  ['SUNSUBSCRIBE'],
  ['SELECT', '1'],
  ['CLIENT', 'SETNAME', 'raw'],
  ['client', 'reply', 'off'],
  ['MONITOR'],
  ['RESET'],
  ['HELLO', '2'],
  ['QUIT'],
  ['AUTH', 'default', 'x'],
  ['MULTI'],
  ['WATCH', 'raw:a'],
];

describe.each([3, 2] as const)('raw commands that change the connection (RESP%i)', (protocol) => {
  it('refuses (P|S)(UN)SUBSCRIBE, and later replies stay with their callers', async () => {
    const client = await clients.open({ protocol });
    await client.set('raw:a', 'A');
    await client.set('raw:b', 'B');
    await expect(client.send(['UNSUBSCRIBE'])).rejects.toBeInstanceOf(RespireUnsupportedCommandError);
    await expect(client.send(['SUBSCRIBE', 'raw:news'])).rejects.toMatchObject({
      name: 'RespireUnsupportedCommandError',
      command: 'SUBSCRIBE',
    });
    expect(await client.get('raw:a')).toBe('A');
    expect(await client.get('raw:b')).toBe('B');
  });

  it.each(REFUSED.map((args) => [args.join(' '), args]))('refuses %s on every send path', async (_, args) => {
    const client = await clients.open({ protocol });
    const refused = (promise: Promise<unknown>) =>
      expect(promise).rejects.toBeInstanceOf(RespireUnsupportedCommandError);
    await refused(client.send([...args]));
    await refused(client.withKeyPrefix('p:').send([...args]));
    const batch = client.batch();
    const entry = batch.send([...args]);
    const ping = batch.ping();
    await batch.tryExecute();
    await refused(entry);
    expect(await ping).toBe('PONG');
    // Nothing reached the server: the connection is still in its normal state.
    expect(await client.send(['CLIENT', 'GETNAME'])).toBeNull();
    expect((await client.clientInfo()).db).toBe('0');
  });

  it('refuses SELECT and CLIENT SETNAME inside a transaction and a WATCH session', async () => {
    const client = await clients.open({ protocol });
    const tx = client.multi();
    const select = tx.send(['SELECT', '1']);
    tx.set('raw:tx', '1');
    // Refused when queued; like a queue-time error, it discards the transaction
    // (transaction-refused-entry.test.ts).
    await expect(select).rejects.toBeInstanceOf(RespireUnsupportedCommandError);
    await expect(tx.exec()).rejects.toBeInstanceOf(RespireUnsupportedCommandError);
    expect(await client.exists(['raw:tx'])).toBe(0);
    expect((await client.clientInfo()).db).toBe('0');
    const session = await client.watch('raw:w');
    await expect(session.send(['CLIENT', 'SETNAME', 'x'])).rejects.toBeInstanceOf(
      RespireUnsupportedCommandError,
    );
    await session.unwatch();
  });

  it('names the option to use instead of SELECT and CLIENT SETNAME', async () => {
    const client = await clients.open({ protocol });
    await expect(client.send(['select', '2'])).rejects.toThrow(/`database` option/);
    await expect(client.send([Buffer.from('CLIENT'), 'SetName', 'n'])).rejects.toThrow(/`clientName` option/);
    // The options themselves survive a reconnect.
    const configured = clients.track(
      await RespireClient.connect({
        endpoints: [{ host: server.host, port: server.port }],
        protocol,
        database: 2,
        clientName: 'configured',
      }),
    );
    expect((await configured.clientInfo()).db).toBe('2');
    expect(await configured.send(['CLIENT', 'GETNAME'])).toBe('configured');
  });

  it('still sends commands whose names only start like a refused one', async () => {
    const client = await clients.open({ protocol });
    expect(await client.send(['CLIENT', 'GETNAME'])).toBeNull();
    expect(await client.send(['PUBSUB', 'NUMPAT'])).toBe(0);
    expect(await client.send(['UNWATCH'])).toBe('OK');
  });
});
