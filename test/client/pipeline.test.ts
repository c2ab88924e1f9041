// The automatic pipeline against a real server (issue 3 "Pipeline"): one write per tick, pauses for
// drain, fireAndForget, AbortSignal before and after the write, listener hygiene, and blocking
// commands on dedicated connections exempt from commandTimeout.
import { getEventListeners } from 'node:events';
import net from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import type { RespireClient } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextTurn, useTestClients, wireLength } from './support.js';

const server = useRedisServer();
const { open, proxied } = useTestClients(server);

interface WriteRecord {
  bytes: number;
  /** The socket had asked to drain when this batch began (a write, or a cork before a writev). */
  needDrainBefore: boolean;
  /** A write inside a cork: part of a batch that began earlier (its start is checked instead). */
  corked: boolean;
  /** The first write of a batch: uncorked, or the first after a cork (corked batches can follow each other). */
  starts: boolean;
}

/** Records every socket write whose peer is `port` (the client's side; the server is another process). */
function spyOnWritesTo(port: number): WriteRecord[] {
  const writes: WriteRecord[] = [];
  const batchStarts: boolean[] = [];
  let corkedJustNow = false;
  const originalWrite = net.Socket.prototype.write;
  const originalCork = net.Socket.prototype.cork;
  vi.spyOn(net.Socket.prototype, 'cork').mockImplementation(function (this: net.Socket) {
    if (this.remotePort === port && this.writableCorked === 0) {
      batchStarts.push(this.writableNeedDrain);
      corkedJustNow = true;
    }
    return originalCork.apply(this);
  });
  vi.spyOn(net.Socket.prototype, 'write').mockImplementation(function (
    this: net.Socket,
    ...args: Parameters<net.Socket['write']>
  ) {
    if (this.remotePort === port) {
      const chunk = args[0];
      const corked = this.writableCorked > 0;
      writes.push({
        bytes: typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength,
        needDrainBefore: corked ? batchStarts.at(-1) === true : this.writableNeedDrain,
        corked,
        starts: !corked || corkedJustNow,
      });
      corkedJustNow = false;
    }
    return originalWrite.apply(this, args);
  });
  return writes;
}

/** Socket writes that began a batch: uncorked writes and the first write of each corked writev. */
function batches(writes: readonly WriteRecord[]): WriteRecord[] {
  return writes.filter((write) => write.starts);
}

function settled<T>(promise: Promise<T>): { done: boolean; promise: Promise<T> } {
  const state = { done: false, promise };
  promise.then(
    () => {
      state.done = true;
    },
    () => {
      state.done = true;
    },
  );
  return state;
}

describe('automatic pipelining', () => {
  it('writes every command issued in one tick in a single socket write', async () => {
    const redis = await open();
    const writes = spyOnWritesTo(server.port);
    const commands: string[][] = [];
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      const args =
        i % 3 === 0
          ? ['SET', `tick:${i}`, `v${i}`]
          : i % 3 === 1
            ? ['GET', `tick:${i - 1}`]
            : ['INCR', `tick:n:${i}`];
      commands.push(args);
      pending.push(redis.send(args));
    }
    const replies = await Promise.all(pending);
    expect(batches(writes)).toHaveLength(1);
    expect(writes.reduce((sum, write) => sum + write.bytes, 0)).toBe(
      commands.reduce((sum, args) => sum + wireLength(args), 0),
    );
    for (let i = 0; i < 300; i++) {
      const expected = i % 3 === 0 ? 'OK' : i % 3 === 1 ? `v${i - 1}` : 1;
      expect(replies[i]).toBe(expected);
    }
  });

  it('writes commands of separate ticks in separate writes', async () => {
    const redis = await open();
    const writes = spyOnWritesTo(server.port);
    const first = redis.echo('a');
    await nextTurn();
    const second = redis.echo('b');
    expect(await Promise.all([first, second])).toEqual(['a', 'b']);
    expect(batches(writes)).toHaveLength(2);
  });

  it('stops writing while the socket needs to drain, and resumes after', async () => {
    // The proxy holds 64 KiB, so a 40 MiB burst cannot leave the client's socket at once.
    const { proxy, client: redis } = await proxied({ commandTimeout: 0 }, { maxQueuedBytes: 64 * 1024 });
    const writes = spyOnWritesTo(proxy.port);
    await proxy.setMode('blackhole');
    const value = 'x'.repeat(100 * 1024);
    const sets = Array.from({ length: 400 }, (_, i) => redis.set(`drain:${i}`, value));
    await proxy.waitUntil((p) => p.pausedReads > 0);
    const batchesWhileBlocked = batches(writes).length;
    expect(batches(writes).filter((write) => write.needDrainBefore)).toEqual([]);
    await proxy.setMode('pass');
    expect(new Set(await Promise.all(sets))).toEqual(new Set(['OK']));
    // Never began a batch on a socket that had asked to drain, and did not write all up front.
    expect(batches(writes).filter((write) => write.needDrainBefore)).toEqual([]);
    expect(batchesWhileBlocked).toBeLessThan(batches(writes).length);
    expect(await redis.send(['STRLEN', 'drain:399'])).toBe(value.length);
  });
});

describe('arguments and large values', () => {
  it('rejects an unencodable command alone; its neighbours in the batch keep their replies', async () => {
    const redis = await open();
    const results = await Promise.allSettled([
      redis.echo('before'),
      redis.send(['SET', 'bad:arg', undefined as unknown as string]),
      redis.send([]),
      redis.send(['SET', 'bad:nan', Number.NaN]),
      redis.send(['SET', 'bad:object', {} as unknown as string]),
      redis.echo('after'),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 'before' });
    for (const result of results.slice(1, 5)) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    }
    expect(results[5]).toEqual({ status: 'fulfilled', value: 'after' });
    expect(await redis.send(['EXISTS', 'bad:arg', 'bad:nan', 'bad:object'])).toBe(0);
  });

  it('streams batches larger than one write and keeps every reply aligned', async () => {
    const redis = await open();
    const big = Buffer.alloc(1024 * 1024, 'b');
    const writes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => redis.send(['SET', `big:${i}`, big, 'GET'])),
    );
    expect(writes).toEqual(Array.from({ length: 12 }, () => null));
    const lengths = await Promise.all(
      Array.from({ length: 12 }, (_, i) => redis.send(['STRLEN', `big:${i}`])),
    );
    expect(lengths).toEqual(Array.from({ length: 12 }, () => big.length));
  });

  it('binary-safe round trip with returnBuffers', async () => {
    const redis = await open({ returnBuffers: true });
    const value = Buffer.from([0, 13, 10, 255, 36, 42, 13, 10, 0]);
    await redis.send(['SET', 'binary', value]);
    const got = await redis.send(['GET', 'binary']);
    expect(Buffer.isBuffer(got)).toBe(true);
    expect(Buffer.compare(got as Buffer, value)).toBe(0);
  });

  it('sends a large Buffer as it was when issued, even if the caller reuses it after settling', async () => {
    const redis = await open();
    // fireAndForget settles at the write, so the caller may refill the Buffer at once.
    const buffer = Buffer.alloc(2 * 1024 * 1024, 'a');
    await redis.send(['SET', 'reuse:ff', buffer], { fireAndForget: true });
    buffer.fill('z');
    // Aborted after the write: the caller gets control back before the bytes are on the wire.
    const second = Buffer.alloc(2 * 1024 * 1024, 'c');
    const controller = new AbortController();
    const aborted = redis.send(['SET', 'reuse:abort', second], { signal: controller.signal });
    queueMicrotask(() => queueMicrotask(() => controller.abort(new Error('stop'))));
    await expect(aborted).rejects.toThrow('stop');
    second.fill('z');
    const [ff, abortedValue] = (await Promise.all([
      redis.send(['GETRANGE', 'reuse:ff', '0', '-1']),
      redis.send(['GETRANGE', 'reuse:abort', '0', '-1']),
    ])) as string[];
    expect(ff).toHaveLength(2 * 1024 * 1024);
    expect(ff!.replaceAll('a', '')).toBe('');
    // Either it was dropped before its write (absent) or it carries the bytes it was issued with.
    if (abortedValue !== '') expect(abortedValue!.replaceAll('c', '')).toBe('');
  });
});

describe('fireAndForget', () => {
  it('resolves once written, and the next reply is still its own', async () => {
    const { proxy, client: redis } = await proxied();
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const fired = redis.send(['INCR', 'ff:counter'], { fireAndForget: true });
    // Resolves while its reply cannot arrive: it was written, that is all it waits for.
    await expect(fired).resolves.toBeUndefined();
    await proxy.waitForClientBytes(before + wireLength(['INCR', 'ff:counter']));
    const echo = redis.echo('mine');
    const get = redis.get('ff:counter');
    await proxy.setMode('pass');
    expect(await echo).toBe('mine');
    expect(await get).toBe('1');
  });

  it('drops an error reply of a fire-and-forget command without disturbing the FIFO', async () => {
    const redis = await open();
    await redis.set('ff:string', 'text');
    await expect(redis.send(['LPUSH', 'ff:string', 'x'], { fireAndForget: true })).resolves.toBeUndefined();
    const echoes = await Promise.all(Array.from({ length: 50 }, (_, i) => redis.echo(`e${i}`)));
    expect(echoes).toEqual(Array.from({ length: 50 }, (_, i) => `e${i}`));
  });
});

describe('AbortSignal', () => {
  it('drops a command aborted before its write: never sent, rejects with the reason', async () => {
    const redis = await open();
    const writes = spyOnWritesTo(server.port);
    const controller = new AbortController();
    const reason = new Error('changed my mind');
    const set = redis.set('abort:before', 'v', { signal: controller.signal });
    controller.abort(reason);
    await expect(set).rejects.toBe(reason);
    expect(writes).toEqual([]);
    expect(await redis.get('abort:before')).toBeNull();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const redis = await open();
    const signal = AbortSignal.abort();
    await expect(redis.set('abort:pre', 'v', { signal })).rejects.toBe(signal.reason);
    expect((signal.reason as Error).name).toBe('AbortError');
    expect(await redis.get('abort:pre')).toBeNull();
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('after the write: rejects with the reason, discards the reply, stays aligned', async () => {
    const { proxy, client: redis } = await proxied();
    await proxy.setMode('blackhole');
    const controller = new AbortController();
    const reason = new Error('too slow for me');
    const before = proxy.bytesFromClient;
    const incr = redis.send(['INCR', 'abort:after'], { signal: controller.signal });
    await proxy.waitForClientBytes(before + wireLength(['INCR', 'abort:after']));
    controller.abort(reason);
    // Rejects now, while the reply is still held by the partition.
    await expect(incr).rejects.toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const echo = redis.echo('next');
    const tail = Promise.all(Array.from({ length: 20 }, (_, i) => redis.echo(`tail${i}`)));
    await proxy.setMode('pass');
    expect(await echo).toBe('next');
    expect(await tail).toEqual(Array.from({ length: 20 }, (_, i) => `tail${i}`));
    // It was sent, so it ran; the same connection is still in use.
    expect(await redis.get('abort:after')).toBe('1');
    expect(proxy.connectionsAccepted).toBe(1);
  });

  it('aborts many written commands in a pipeline and keeps every other reply its own', async () => {
    const { proxy, client: redis } = await proxied();
    await proxy.setMode('delay', 20, 'toClient');
    const controllers = Array.from({ length: 200 }, () => new AbortController());
    const results = controllers.map((controller, i) => redis.echo(`m${i}`, { signal: controller.signal }));
    await proxy.waitForClientBytes(
      controllers.reduce((sum, _, i) => sum + wireLength(['ECHO', `m${i}`]), proxy.bytesFromClient),
    );
    controllers.forEach((controller, i) => {
      if (i % 2 === 0) controller.abort(i);
    });
    const outcomes = await Promise.allSettled(results);
    outcomes.forEach((outcome, i) => {
      if (i % 2 === 0) expect(outcome).toEqual({ status: 'rejected', reason: i });
      else expect(outcome).toEqual({ status: 'fulfilled', value: `m${i}` });
    });
    expect(await redis.echo('after')).toBe('after');
  });

  it('leaves no listener behind on a long-lived signal after a million commands', async () => {
    const redis = await open();
    const controller = new AbortController();
    const { signal } = controller;
    const total = 1_000_000;
    const batch = 2000;
    let maxListeners = 0;
    for (let sent = 0; sent < total; sent += batch) {
      const pending: Promise<unknown>[] = new Array(batch);
      for (let i = 0; i < batch; i++) pending[i] = redis.ping({ signal });
      maxListeners = Math.max(maxListeners, getEventListeners(signal, 'abort').length);
      const replies = await Promise.all(pending);
      if (replies[batch - 1] !== 'PONG') throw new Error(`unexpected reply ${String(replies[batch - 1])}`);
      expect(getEventListeners(signal, 'abort').length).toBe(0);
    }
    // The signal was really attached while commands were in flight (else this test proves nothing),
    // and each command is reachable from it at most once.
    expect(maxListeners).toBeGreaterThan(0);
    expect(maxListeners).toBeLessThanOrEqual(batch);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('leaves no listener behind after aborts, timeouts, errors and fire-and-forget', async () => {
    const { proxy, client: redis } = await proxied();
    const signal = new AbortController().signal;
    await redis.set('listeners:string', 'x');
    await Promise.allSettled([
      redis.send(['LPUSH', 'listeners:string', 'y'], { signal }),
      redis.send(['SET', 'listeners:ff', '1'], { signal, fireAndForget: true }),
      redis.send(['GET', 'listeners:ff'], { signal }),
    ]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    // A reply deadline passes: the command and what shared its connection fail.
    await proxy.setMode('blackhole');
    const timedOut = Promise.allSettled([
      redis.send(['GET', 'listeners:ff'], { signal, timeout: 50 }),
      redis.send(['GET', 'listeners:ff'], { signal, timeout: 10_000 }),
    ]);
    const outcomes = await timedOut;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await proxy.setMode('pass');
    // Aborted after the write, while queued behind the partition, and before the write.
    await proxy.setMode('blackhole');
    const afterWrite = new AbortController();
    const inflight = redis.echo('w', { signal: afterWrite.signal });
    await proxy.waitForClientBytes(proxy.bytesFromClient + wireLength(['ECHO', 'w']));
    afterWrite.abort();
    await expect(inflight).rejects.toBe(afterWrite.signal.reason);
    const beforeWrite = new AbortController();
    const queued = redis.echo('q', { signal: beforeWrite.signal });
    beforeWrite.abort();
    await expect(queued).rejects.toBe(beforeWrite.signal.reason);
    expect(getEventListeners(afterWrite.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(beforeWrite.signal, 'abort')).toHaveLength(0);
    await proxy.setMode('pass');
    expect(await redis.echo('end', { signal })).toBe('end');
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('does not make Node warn about an EventTarget leak when commands share a signal', async () => {
    const redis = await open();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) => redis.echo(`s${i}`, { signal })),
      );
      expect(replies[99]).toBe('s99');
      // Warnings are emitted on a later tick.
      await nextTurn();
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

/**
 * CLIENT LIST lines of clients blocked in BLPOP, once there are at least `count` (or exactly
 * `count` when `exact`); asks up to 500 times, one round trip each.
 */
async function blockedClients(redis: RespireClient, count: number, exact = false): Promise<string[]> {
  let lines: string[] = [];
  for (let attempt = 0; attempt < 500; attempt++) {
    const list = String(await redis.send(['CLIENT', 'LIST']));
    lines = list.split('\n').filter((line) => line.includes('cmd=blpop') && line.includes('flags=b'));
    if (exact ? lines.length === count : lines.length >= count) return lines;
    await nextTurn();
  }
  throw new Error(
    `expected ${exact ? '' : 'at least '}${count} clients blocked in BLPOP, saw ${lines.length}`,
  );
}

describe('blocking commands', () => {
  it('are exempt from commandTimeout', async () => {
    const redis = await open({ commandTimeout: 100 });
    // Each blocks server-side for 300 ms, three times the reply deadline of ordinary commands.
    const [blpop, wait, xread] = await Promise.all([
      redis.send(['BLPOP', 'block:empty', '0.3']),
      redis.send(['WAIT', '1', '300']),
      redis.send(['XREAD', 'BLOCK', '300', 'STREAMS', 'block:stream', '$']),
    ]);
    expect(blpop).toBeNull();
    expect(wait).toBe(0);
    expect(xread).toBeNull();
    // An ordinary command is still held to the deadline (DEBUG SLEEP blocks the server for 300 ms).
    await expect(redis.send(['DEBUG', 'SLEEP', '0.3'])).rejects.toMatchObject({
      name: 'RespireTimeoutError',
      phase: 'response',
    });
  });

  it('run on a dedicated connection and never stall the shared pipeline', async () => {
    const redis = await open({ commandTimeout: 100 });
    const mainId = await redis.send(['CLIENT', 'ID']);
    const blocked = [0, 1, 2].map((i) => settled(redis.send(['BLPOP', `block:q${i}`, '0'])));
    const echoes = await Promise.all(Array.from({ length: 1000 }, (_, i) => redis.echo(`p${i}`)));
    expect(echoes[999]).toBe('p999');
    // The dedicated connections handshake on their own; ask the server until all three block.
    const blockers = await blockedClients(redis, 3);
    for (const line of blockers) expect(line).not.toContain(`id=${mainId} `);
    expect(blocked.some((state) => state.done)).toBe(false);
    for (let i = 0; i < 3; i++) await redis.send(['RPUSH', `block:q${i}`, `job${i}`]);
    expect(await Promise.all(blocked.map((state) => state.promise))).toEqual([
      ['block:q0', 'job0'],
      ['block:q1', 'job1'],
      ['block:q2', 'job2'],
    ]);
  });

  it.each([3, 2] as const)(
    'use the same database and protocol as the client (protocol %i)',
    async (protocol) => {
      const redis = await open({ database: 5, protocol });
      const popped = redis.send(['BLPOP', `block:db:${protocol}`, '5']);
      await blockedClients(redis, 1);
      await redis.send(['RPUSH', `block:db:${protocol}`, 'in-db-5']);
      // A dedicated connection left in db 0 would stay blocked there until its 5 s timeout.
      expect(await popped).toEqual([`block:db:${protocol}`, 'in-db-5']);
      const zpop = redis.send(['BZPOPMIN', `block:z:${protocol}`, '5']);
      await redis.send(['ZADD', `block:z:${protocol}`, '1.5', 'm']);
      // RESP3 answers the score as a double, RESP2 as a bulk string.
      expect(await zpop).toEqual([`block:z:${protocol}`, 'm', protocol === 3 ? 1.5 : '1.5']);
    },
  );

  it('is bounded by a signal, and the connection left blocked is not reused', async () => {
    const redis = await open();
    const controller = new AbortController();
    const blocked = redis.send(['BLPOP', 'block:abort', '0'], { signal: controller.signal });
    // Wait until the server has the client blocked, so the abort hits a written command.
    await blockedClients(redis, 1);
    controller.abort(new Error('enough'));
    await expect(blocked).rejects.toThrow('enough');
    // The connection left blocked is closed: the server drops its client (a kept one stays blocked).
    await blockedClients(redis, 0, true);
    // A new blocking command gets a fresh connection, and the aborted BLPOP cannot eat the push.
    const next = redis.send(['BLPOP', 'block:abort', '5']);
    await redis.send(['RPUSH', 'block:abort', 'only']);
    expect(await next).toEqual(['block:abort', 'only']);
  });
});
