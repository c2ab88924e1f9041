// Regression: a command `send` refuses (refused-commands.ts), queued in a transaction, was left out
// while the rest of the transaction still ran, and its rejected promise was never marked handled.
// So `tx.send(['SELECT', '1']); tx.set(k, v); await tx.exec()` wrote k into database 0 (the very
// database the caller meant to leave) and crashed a process that awaits only `exec()` (the
// documented way) with an unhandled rejection. Redis itself discards a transaction on a queue-time
// error (EXECABORT); a refused entry now does the same: `exec()` rejects with the refusal, every
// entry rejects, nothing is sent.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RespireMetricGroups, RespireUnsupportedCommandError } from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import { nextTurn, outcome, recordWritesTo, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe.each([3, 2] as const)('a transaction with a refused entry (RESP%i)', (protocol) => {
  it('sends nothing and rejects exec() with the refusal, with no unhandled rejection', async () => {
    const meter = new RecordingMeter();
    const client = await clients.open({ protocol, meter, metricGroups: [RespireMetricGroups.Commands] });
    const writes = recordWritesTo(server.port);
    const tx = client.multi();
    tx.send(['SELECT', '1']); // not awaited: only exec() is, as the class notes allow
    const set = tx.set('refused:tx:k', 'v');
    const result = await outcome(tx.exec());
    expect(result.error).toBeInstanceOf(RespireUnsupportedCommandError);
    expect((await outcome(set)).error).toBe(result.error);
    expect(writes).toEqual([]);
    // exec()'s rejection is what its caller received: counted once.
    expect(meter.of('redis.client.errors').map((m) => m.attributes?.['error.type'])).toEqual([
      'RespireUnsupportedCommandError',
    ]);
    // Unhandled rejections surface after the microtasks of the current turn.
    await nextTurn();
    await nextTurn();
    expect(unhandled).toEqual([]);
    expect(await client.exists(['refused:tx:k'])).toBe(0);
  });

  it('in a WATCH session, runs nothing and ends the session', async () => {
    const client = await clients.open({ protocol });
    const session = await client.watch('refused:tx:w');
    const tx = session.multi();
    tx.set('refused:tx:w', 'v');
    tx.send([Buffer.from('client'), 'SETNAME', 'x']);
    expect((await outcome(tx.exec())).error).toBeInstanceOf(RespireUnsupportedCommandError);
    expect(session.active).toBe(false);
    await nextTurn();
    await nextTurn();
    expect(unhandled).toEqual([]);
    expect(await client.exists(['refused:tx:w'])).toBe(0);
  });
});
