// Large Buffer values through RespireClient against a real server: the pipeline writes them by
// reference (CommandEncoder.takeChunks, corked socket writes) and still delivers exact bytes,
// respects backpressure, and copies where a promise can settle before the bytes have left.
import net from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import type { RespireClient } from '../../src/index.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { useTestClients } from './support.js';

const server = useRedisServer();
const { open, proxied: proxiedWith } = useTestClients(server, { returnBuffers: true });

/** A client without command deadlines behind a proxy that holds at most `maxQueuedBytes`. */
function proxied(maxQueuedBytes: number): Promise<{ proxy: FaultProxy; client: RespireClient }> {
  return proxiedWith({ commandTimeout: 0 }, { maxQueuedBytes });
}

/** A value whose every byte depends on its position and `seed`, so a shifted or mixed byte shows. */
function pattern(length: number, seed: number): Buffer {
  const value = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) value[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return value;
}

/** Asserts byte equality without printing megabytes when it fails. */
function expectSameBytes(actual: unknown, expected: Buffer, what: string): void {
  expect(Buffer.isBuffer(actual), `${what} is a Buffer`).toBe(true);
  const bytes = actual as Buffer;
  expect(bytes.length, `${what} length`).toBe(expected.length);
  const firstDifference = bytes.findIndex((byte, i) => byte !== expected[i]);
  expect(firstDifference, `${what}: first differing byte`).toBe(-1);
}

interface WriteRecord {
  chunk: Uint8Array;
  corked: number;
  needDrainBefore: boolean;
}

/** Records socket writes and corks towards `port`, in order (`'cork'` marks a corked batch). */
function spyOnSocket(port: number): (WriteRecord | 'cork')[] {
  const events: (WriteRecord | 'cork')[] = [];
  const write = net.Socket.prototype.write;
  const cork = net.Socket.prototype.cork;
  vi.spyOn(net.Socket.prototype, 'cork').mockImplementation(function (this: net.Socket) {
    if (this.remotePort === port) events.push('cork');
    return cork.call(this);
  });
  vi.spyOn(net.Socket.prototype, 'write').mockImplementation(function (
    this: net.Socket,
    ...args: Parameters<net.Socket['write']>
  ) {
    if (this.remotePort === port) {
      events.push({
        chunk: args[0] as Uint8Array,
        corked: this.writableCorked,
        needDrainBefore: this.writableNeedDrain,
      });
    }
    return write.apply(this, args);
  });
  return events;
}

describe('large Buffer values', () => {
  it('round-trips a 1 MiB Buffer, handed to the socket by reference in a corked write', async () => {
    const redis = await open();
    const events = spyOnSocket(server.port);
    const value = pattern(1 << 20, 1);
    expect(await redis.send(['SET', 'large:1mib', value])).toEqual(Buffer.from('OK'));
    const writes = events.filter((event) => event !== 'cork');
    // Header, the value itself (not a copy), CRLF: one corked batch.
    expect(events[0]).toBe('cork');
    expect(writes.map((write) => write.chunk.length)).toEqual([
      `*3\r\n$3\r\nSET\r\n$10\r\nlarge:1mib\r\n$${1 << 20}\r\n`.length,
      1 << 20,
      2,
    ]);
    expect(writes[1]!.chunk).toBe(value);
    expect(writes.every((write) => write.corked === 1)).toBe(true);
    expectSameBytes(await redis.send(['GET', 'large:1mib']), pattern(1 << 20, 1), 'GET large:1mib');
    expect(await redis.send(['STRLEN', 'large:1mib'])).toBe(1 << 20);
  });

  it('keeps exact bytes and reply order for large and small commands mixed in one tick', async () => {
    const redis = await open();
    // Around the 16 KiB threshold, plain Uint8Array views included, and several large per command.
    const sizes = [16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 100 * 1024, 0, 5, 300 * 1024, 1 << 20];
    const values = sizes.map((size, i) => pattern(size, i + 2));
    const sets: Promise<unknown>[] = [];
    const echoes: Promise<unknown>[] = [];
    values.forEach((value, i) => {
      const argument = i % 2 === 0 ? value : new Uint8Array(value.buffer, value.byteOffset, value.length);
      sets.push(redis.send(['SET', `mixed:${i}`, argument]));
      echoes.push(redis.send(['ECHO', `small:${i}`]));
    });
    sets.push(redis.send(['MSET', 'mixed:a', values[6]!, 'mixed:b', 'tiny', 'mixed:c', values[7]!]));
    expect(await Promise.all(sets)).toEqual(sets.map(() => Buffer.from('OK')));
    expect(await Promise.all(echoes)).toEqual(values.map((_, i) => Buffer.from(`small:${i}`)));
    const got = await Promise.all(values.map((_, i) => redis.send(['GET', `mixed:${i}`])));
    got.forEach((bytes, i) => {
      expectSameBytes(bytes, pattern(sizes[i]!, i + 2), `mixed:${i}`);
    });
    const [a, b, c] = (await redis.send(['MGET', 'mixed:a', 'mixed:b', 'mixed:c'])) as Buffer[];
    expectSameBytes(a, pattern(sizes[6]!, 8), 'mixed:a');
    expect(b).toEqual(Buffer.from('tiny'));
    expectSameBytes(c, pattern(sizes[7]!, 9), 'mixed:c');
  });

  it('stops writing further commands while the socket needs to drain, and resumes after', async () => {
    // The proxy holds 64 KiB, so 200 values of 100 KiB cannot leave the client's socket at once.
    const { proxy, client: redis } = await proxied(64 * 1024);
    const events = spyOnSocket(proxy.port);
    await proxy.setMode('blackhole');
    const values = Array.from({ length: 200 }, (_, i) => pattern(100 * 1024, i));
    const sets = values.map((value, i) => redis.send(['SET', `drain:${i}`, value]));
    await proxy.waitUntil((p) => p.pausedReads > 0);
    const writesWhileBlocked = events.filter((event) => event !== 'cork').length;
    await proxy.setMode('pass');
    expect(new Set((await Promise.all(sets)).map(String))).toEqual(new Set(['OK']));
    // Every corked batch began on a socket that had not asked to drain: writes after a full
    // socket only finish the batch of commands already encoded.
    const batchStarts = events.filter((event, i) => event !== 'cork' && events[i - 1] === 'cork');
    expect(batchStarts.length).toBeGreaterThan(1);
    expect(batchStarts.filter((write) => (write as WriteRecord).needDrainBefore)).toEqual([]);
    for (const event of events) {
      if (event !== 'cork' && event.needDrainBefore) expect(event.corked).toBe(1);
    }
    expect(writesWhileBlocked).toBeLessThan(events.filter((event) => event !== 'cork').length);
    for (const i of [0, 117, 199]) {
      expectSameBytes(await redis.send(['GET', `drain:${i}`]), pattern(100 * 1024, i), `drain:${i}`);
    }
  });
});

describe('reusing a Buffer once its command settled', () => {
  // 16 MiB is more than the loopback socket buffers between the client and a stalled proxy hold,
  // so part of the value is still in the client when the promise settles.
  const size = 16 << 20;

  it('is safe after a fire-and-forget command resolves, though its bytes have not left', async () => {
    const { proxy, client: redis } = await proxied(64 * 1024);
    await proxy.setMode('blackhole');
    const value = pattern(size, 3);
    await expect(redis.send(['SET', 'reuse:ff', value], { fireAndForget: true })).resolves.toBeUndefined();
    value.fill(0);
    await proxy.setMode('pass');
    expectSameBytes(await redis.send(['GET', 'reuse:ff']), pattern(size, 3), 'reuse:ff');
  });

  it('is safe after a command aborted after its write rejects, though its bytes have not left', async () => {
    const { proxy, client: redis } = await proxied(64 * 1024);
    await proxy.setMode('blackhole');
    const value = pattern(size, 4);
    const controller = new AbortController();
    const before = proxy.bytesFromClient;
    const set = redis.send(['SET', 'reuse:abort', value], { signal: controller.signal });
    await proxy.waitForClientBytes(before + 64 * 1024);
    controller.abort(new Error('gave up'));
    await expect(set).rejects.toThrow('gave up');
    value.fill(0);
    await proxy.setMode('pass');
    expectSameBytes(await redis.send(['GET', 'reuse:abort']), pattern(size, 4), 'reuse:abort');
  });

  it('is safe after an ordinary command resolves: its reply came after the server read it all', async () => {
    const redis = await open();
    const value = pattern(size, 5);
    expect(await redis.send(['SET', 'reuse:plain', value])).toEqual(Buffer.from('OK'));
    value.fill(0);
    expectSameBytes(await redis.send(['GET', 'reuse:plain']), pattern(size, 5), 'reuse:plain');
  });
});
