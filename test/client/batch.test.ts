// redis.batch() against a real server, RESP3 and RESP2 (API.md "Batches, transactions, views"):
// queuing sends nothing, execute() writes every entry in one write and contiguously, failures are
// reported in queue order only after every entry settled, and per-entry options still apply.
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { encodeCommand } from '../../src/resp/index.js';
import { seededRandom } from '../kit/seeded-random.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextTurn, PROTOCOLS, recordWritesTo, useTestClients } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('batch over RESP%i', (protocol) => {
  const { open, proxied } = useTestClients(server, { protocol });

  const key = (name: string) => `batch:${protocol}:${name}`;

  it('settles every entry with its own reply and reports failures in queue order', async () => {
    const redis = await open();
    const batch = redis.batch();
    const set = batch.set(key('a'), '1');
    const get = batch.get(key('a'));
    batch.send(['LPUSH', key('a'), 'x']);
    const incr = batch.send(['INCR', key('a')]);
    batch.send(['HSET', key('h')]);
    const last = batch.get(key('a'));
    const failures = await batch.tryExecute();
    expect(failures.map((failure) => failure.index)).toEqual([2, 4]);
    expect(failures[0]!.error).toBeInstanceOf(RespireServerError);
    expect(failures[0]!.error).toMatchObject({ code: 'WRONGTYPE' });
    expect(failures[1]!.error).toMatchObject({ code: 'ERR' });
    expect(await Promise.all([set, get, incr, last])).toEqual(['OK', '1', 2, '2']);
  });

  it('resolves execute() with every value in queue order, converted, whatever order they settle in', async () => {
    const redis = await open();
    await redis.del(key('list'));
    const batch = redis.batch();
    batch.hset(key('hash'), { f: 'v' });
    // BLPOP runs on a dedicated connection, so it settles after the entries queued behind it.
    batch.send(['BLPOP', key('list'), '0']);
    batch.hgetall(key('hash'));
    batch.rpush(key('list'), 'item');
    const values = batch.execute();
    // Its RPUSH on the shared connection is what releases the BLPOP.
    expect(await values).toEqual([1, [key('list'), 'item'], { f: 'v' }, 1]);
  });

  it('throws the first failure in queue order, only after every entry settled', async () => {
    const redis = await open();
    await redis.set(key('str'), 'x');
    const controller = new AbortController();
    const reason = new Error('stop waiting');
    const batch = redis.batch();
    // A blocking entry runs on a dedicated connection; it settles last, when aborted.
    const blocked = batch.send(['BLPOP', key('never'), '0'], { signal: controller.signal });
    const wrongType = batch.send(['LPUSH', key('str'), 'y']);
    let settled = false;
    const outcome = batch.execute().then(
      () => 'resolved',
      (error: unknown) => error,
    );
    outcome.then(() => {
      settled = true;
    });
    await expect(wrongType).rejects.toMatchObject({ code: 'WRONGTYPE' });
    expect(await redis.ping()).toBe('PONG');
    expect(settled).toBe(false);
    controller.abort(reason);
    await expect(blocked).rejects.toBe(reason);
    expect(await outcome).toBe(reason);
  });

  it('sends nothing while queuing and every entry in one write on execute', async () => {
    const redis = await open();
    const writes = recordWritesTo(server.port);
    const batch = redis.batch();
    const commands = [
      ['SET', key('w'), 'v'],
      ['GET', key('w')],
      ['INCR', key('wn')],
      ['ECHO', 'done'],
    ];
    const entries = commands.map((args) => batch.send(args));
    await nextTurn();
    expect(writes).toEqual([]);
    await batch.execute();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.equals(Buffer.concat(commands.map((args) => encodeCommand(args))))).toBe(true);
    expect(await Promise.all(entries)).toEqual(['OK', 'v', 1, 'done']);
  });

  it('sends nothing for an empty batch', async () => {
    const redis = await open();
    const writes = recordWritesTo(server.port);
    expect(await redis.batch().tryExecute()).toEqual([]);
    await redis.batch().execute();
    await nextTurn();
    expect(writes).toEqual([]);
  });

  it('keeps each batch contiguous among concurrent commands of the same client', async () => {
    const redis = await open();
    const random = seededRandom();
    const counter = key('counter');
    const batchResults: Promise<unknown[]>[] = [];
    const singles: Promise<unknown>[] = [];
    const tasks = Array.from({ length: 8 }, async () => {
      for (let round = 0; round < 10; round++) {
        if (random.next() < 0.5) {
          const batch = redis.batch();
          const entries = Array.from({ length: 2 + Math.floor(random.next() * 8) }, () =>
            batch.send(['INCR', counter]),
          );
          batchResults.push(batch.execute().then(() => Promise.all(entries)));
        } else {
          singles.push(redis.send(['INCR', counter]));
        }
        if (random.next() < 0.5) await nextTurn();
      }
    });
    await Promise.all(tasks);
    const batches = await Promise.all(batchResults);
    const all = [...batches.flat(), ...(await Promise.all(singles))] as number[];
    // Every INCR ran once; a batch's INCRs saw consecutive values, so nothing ran between them.
    expect([...all].sort((a, b) => a - b)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    for (const results of batches as number[][]) {
      expect(results).toEqual(results.map((_, i) => results[0]! + i));
    }
  });

  it('stays contiguous when its entries have to wait for room in the send queue', async () => {
    const redis = await open({ maxPendingCommands: 3 });
    const counter = key('full');
    const controller = new AbortController();
    const dropped = expect(
      redis.send(['SET', key('dropped'), 'x'], { signal: controller.signal }),
    ).rejects.toThrow('dropped');
    const batch = redis.batch();
    const entries = [0, 1, 2].map(() => batch.send(['INCR', counter]));
    // Send queue: the SET and two entries; the third entry waits for room.
    const executed = batch.execute();
    // Aborting frees a slot in the send queue while two entries still wait for room.
    controller.abort(new Error('dropped'));
    const outsider = redis.send(['INCR', counter]);
    await executed;
    await dropped;
    expect(await Promise.all(entries)).toEqual([1, 2, 3]);
    expect(await outsider).toBe(4);
  });

  it('drops an entry whose signal aborted before execute and applies per-entry timeouts', async () => {
    const redis = await open();
    const controller = new AbortController();
    const reason = new Error('not wanted');
    const batch = redis.batch();
    batch.send(['SET', key('aborted'), 'x'], { signal: controller.signal });
    batch.get(key('aborted'), { timeout: -1 });
    const kept = batch.set(key('kept'), 'y');
    controller.abort(reason);
    const failures = await batch.tryExecute();
    expect(failures.map((failure) => failure.index)).toEqual([0, 1]);
    expect(failures[0]!.error).toBe(reason);
    expect(failures[1]!.error).toMatchObject({ name: 'RespireConfigurationError', option: 'timeout' });
    expect(await kept).toBe('OK');
    expect(await redis.get(key('aborted'))).toBeNull();
  });

  it('fails an entry past its own reply deadline with RespireTimeoutError', async () => {
    const { proxy, client: redis } = await proxied({ reconnect: { minDelay: 1, maxDelay: 5 } });
    await proxy.setMode('blackhole');
    const batch = redis.batch();
    const slow = batch.get(key('slow'), { timeout: 30 });
    const other = batch.get(key('other'));
    const failures = batch.tryExecute();
    expect(await slow.catch((error: unknown) => error)).toMatchObject({
      name: 'RespireTimeoutError',
      phase: 'response',
      written: true,
    });
    // That deadline failed its entry alone: once the link heals, the other entry gets its reply
    // on the same connection, and the timed-out entry's late reply is dropped, not misdelivered.
    await proxy.setMode('pass');
    expect(await other).toBeNull();
    expect((await failures).map((failure) => failure.index)).toEqual([0]);
    expect(await redis.ping()).toBe('PONG');
    expect(proxy.connectionsAccepted).toBe(1);
  });

  it('runs once: executing again or queuing after execute is a TypeError', async () => {
    const redis = await open();
    const batch = redis.batch();
    batch.ping();
    await batch.execute();
    await expect(batch.execute()).rejects.toBeInstanceOf(TypeError);
    await expect(batch.tryExecute()).rejects.toBeInstanceOf(TypeError);
    await expect(batch.get(key('late'))).rejects.toBeInstanceOf(TypeError);
    expect(batch.length).toBe(1);
  });

  it('leaves no unhandled rejection when only execute() is awaited', async () => {
    const redis = await open();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await redis.set(key('plain'), 'x');
      const batch = redis.batch();
      batch.send(['LPUSH', key('plain'), 'y']);
      batch.send(['NOSUCHCOMMAND']);
      // Rejected as it is queued, before execute() runs: still handled by the batch.
      batch.send(['GET', key('plain')], { timeout: -1 });
      await expect(batch.execute()).rejects.toMatchObject({ code: 'WRONGTYPE' });
      await nextTurn();
      await nextTurn();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
