// redis.multi() against a real server, RESP3 and RESP2 (API.md "Batches, transactions, views"):
// MULTI, the commands and EXEC in one write, results in order with each entry's own conversion,
// errors inside EXEC as values, EXECABORT as a rejection, and contiguity under concurrent traffic.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError, RespireServerError } from '../../src/index.js';
import { encodeCommand } from '../../src/resp/index.js';
import { seededRandom } from '../kit/seeded-random.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextTurn, PROTOCOLS, recordWritesTo, useTestClients } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('multi over RESP%i', (protocol) => {
  const { open, proxied } = useTestClients(server, { protocol });

  const key = (name: string) => `multi:${protocol}:${name}`;

  it('resolves with every result in order, each with its own reply conversion', async () => {
    const redis = await open();
    const tx = redis.multi();
    const set = tx.set(key('n'), '5');
    const incr = tx.incr(key('n'));
    const get = tx.get(key('n'));
    const exists = tx.send(['EXISTS', key('n'), key('missing')]);
    expect(tx.length).toBe(4);
    const results = await tx.exec();
    expect(results).toEqual(['OK', 6, '6', 1]);
    expect(await Promise.all([set, incr, get, exists])).toEqual(['OK', 6, '6', 1]);
  });

  it('puts an error inside EXEC in the results and rejects only that entry', async () => {
    const redis = await open();
    const tx = redis.multi();
    tx.set(key('s'), 'x');
    const wrongType = tx.send(['LPUSH', key('s'), 'y']);
    const get = tx.get(key('s'));
    const results = await tx.exec();
    expect(results).toHaveLength(3);
    expect(results[0]).toBe('OK');
    expect(results[1]).toBeInstanceOf(RespireServerError);
    expect(results[1]).toMatchObject({ code: 'WRONGTYPE' });
    expect(results[2]).toBe('x');
    await expect(wrongType).rejects.toBe(results[1]);
    expect(await get).toBe('x');
  });

  it('rejects exec() on EXECABORT with the queue-time error as cause, executing nothing', async () => {
    const redis = await open();
    const tx = redis.multi();
    const first = tx.set(key('e'), '1');
    const bad = tx.send(['SET', key('e')]);
    const last = tx.get(key('e'));
    const error = await tx.exec().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RespireServerError);
    expect(error).toMatchObject({ code: 'EXECABORT', endpoint: { host: server.host, port: server.port } });
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(RespireServerError);
    expect((cause as Error).message).toMatch(/wrong number of arguments/);
    await expect(bad).rejects.toBe(cause);
    await expect(first).rejects.toBe(error);
    await expect(last).rejects.toBe(error);
    // Nothing ran, and the QUEUED replies were consumed: the connection is still aligned.
    expect(await redis.get(key('e'))).toBeNull();
    expect(await redis.echo('aligned')).toBe('aligned');
  });

  it('writes MULTI, the commands and EXEC in one write', async () => {
    const redis = await open();
    const writes = recordWritesTo(server.port);
    const tx = redis.multi();
    const commands = [
      ['SET', key('w'), 'v'],
      ['GET', key('w')],
    ];
    for (const args of commands) tx.send(args);
    await nextTurn();
    expect(writes).toEqual([]);
    expect(await tx.exec()).toEqual(['OK', 'v']);
    const expected = [['MULTI'], ...commands, ['EXEC']].map((args) => encodeCommand(args));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.equals(Buffer.concat(expected))).toBe(true);
  });

  it('sends nothing for an empty transaction and resolves []', async () => {
    const redis = await open();
    const writes = recordWritesTo(server.port);
    expect(await redis.multi().exec()).toEqual([]);
    const controller = new AbortController();
    const tx = redis.multi();
    const dropped = tx.get(key('dropped'), { signal: controller.signal });
    controller.abort(new Error('left out'));
    await expect(dropped).rejects.toThrow('left out');
    expect(await tx.exec()).toEqual([]);
    await nextTurn();
    expect(writes).toEqual([]);
  });

  it('runs blocking commands inside MULTI on the shared connection without blocking', async () => {
    const redis = await open();
    const tx = redis.multi();
    tx.send(['BLPOP', key('empty'), '0']);
    tx.send(['CLIENT', 'ID']);
    const [popped, id] = await tx.exec();
    expect(popped).toBeNull();
    expect(id).toBe(await redis.send(['CLIENT', 'ID']));
  });

  it('keeps transactions contiguous among concurrent commands of the same client', async () => {
    const redis = await open();
    const random = seededRandom();
    const counter = key('counter');
    const transactions: Promise<unknown[]>[] = [];
    const singles: Promise<unknown>[] = [];
    const tasks = Array.from({ length: 8 }, async () => {
      for (let round = 0; round < 10; round++) {
        if (random.next() < 0.5) {
          const tx = redis.multi();
          for (let i = 0; i < 1 + Math.floor(random.next() * 6); i++) tx.send(['INCR', counter]);
          transactions.push(tx.exec());
        } else {
          singles.push(redis.send(['INCR', counter]));
        }
        if (random.next() < 0.5) await nextTurn();
      }
    });
    await Promise.all(tasks);
    const results = (await Promise.all(transactions)) as number[][];
    const all = [...results.flat(), ...((await Promise.all(singles)) as number[])];
    // No plain INCR was swallowed by a MULTI (it would have answered QUEUED) and each
    // transaction's INCRs saw consecutive values.
    expect([...all].sort((a, b) => a - b)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    for (const values of results) expect(values).toEqual(values.map((_, i) => values[0]! + i));
  });

  it('runs once: exec() again or queuing after exec() is a TypeError', async () => {
    const redis = await open();
    const tx = redis.multi();
    tx.ping();
    expect(await tx.exec()).toEqual(['PONG']);
    await expect(tx.exec()).rejects.toBeInstanceOf(TypeError);
    await expect(tx.ping()).rejects.toBeInstanceOf(TypeError);
  });

  it('sends nothing when the signal of exec() aborted, and rejects every entry with its reason', async () => {
    const redis = await open();
    const writes = recordWritesTo(server.port);
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);
    const tx = redis.multi();
    const entry = tx.set(key('never'), 'x');
    await expect(tx.exec({ signal: controller.signal })).rejects.toBe(reason);
    await expect(entry).rejects.toBe(reason);
    await nextTurn();
    expect(writes).toEqual([]);
    await expect(redis.multi().exec({ timeout: 1.5 })).rejects.toMatchObject({
      name: 'RespireConfigurationError',
      option: 'timeout',
    });
  });

  it('fails with RespireConnectionError when the connection drops before EXEC is answered', async () => {
    const { proxy, client: redis } = await proxied({ reconnect: { minDelay: 1, maxDelay: 5 } });
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const tx = redis.multi();
    const entry = tx.set(key('lost'), 'x');
    const outcome = tx.exec();
    await proxy.waitForClientBytes(before + 1);
    await proxy.setMode('reset');
    await expect(outcome).rejects.toMatchObject({ name: 'RespireConnectionError', written: true });
    await expect(entry).rejects.toBeInstanceOf(RespireConnectionError);
    await proxy.setMode('pass');
    const tx2 = redis.multi();
    tx2.echo('again');
    expect(await tx2.exec()).toEqual(['again']);
  });
});
