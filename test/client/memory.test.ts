// Memory stays bounded while the server is unreachable (issue 3 "Pipeline", "Tests"): with the
// server black-holed, a flood of a million commands holds at most what maxPendingCommands (plus
// what the socket already took) implies; the rest fail at once or after acquireTimeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, RespireTimeoutError } from '../../src/index.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import { heapUsed } from '../kit/heap-used.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { inflightCount, nextTurn, useTestClients } from './support.js';

const MiB = 1024 * 1024;

describe('a million commands against a black-holed server', () => {
  const server = useRedisServer();
  let proxy: FaultProxy;
  let redis: RespireClient;

  beforeAll(async () => {
    // A 64 KiB window, like a peer that stopped reading; the kernel buffers add a few MiB.
    proxy = await startFaultProxy({
      target: { host: server.host, port: server.port },
      maxQueuedBytes: 64 * 1024,
    });
    redis = await RespireClient.connect({
      endpoints: [{ host: proxy.host, port: proxy.port }],
      maxPendingCommands: 1000,
      acquireTimeout: 1000,
      commandTimeout: 0,
    });
  });

  afterAll(async () => {
    redis?.destroy();
    await proxy?.stop();
  });

  it('keeps the heap within the bound maxPendingCommands implies', async () => {
    // 1 KiB values fill the socket after a few thousand commands; one shared string, so a pending
    // command costs its record, promise and key, not a copy of the value.
    const value = 'm'.repeat(1024);
    expect(await redis.set('mem:warmup', value)).toBe('OK');
    const baseline = heapUsed();
    await proxy.setMode('blackhole');

    const total = 1_000_000;
    const batch = 10_000;
    let ok = 0;
    let acquire = 0;
    const other: unknown[] = [];
    let allSettled: () => void = () => {};
    const settled = new Promise<void>((resolve) => {
      allSettled = resolve;
    });
    const count = () => {
      if (ok + acquire + other.length === total) allSettled();
    };
    const onOk = () => {
      ok++;
      count();
    };
    const onError = (error: unknown) => {
      if (error instanceof RespireTimeoutError && error.phase === 'acquire' && error.written === false)
        acquire++;
      else other.push(error);
      count();
    };
    let peakPending = 0;
    let peakHeapGrowth = 0;
    // The flood measures memory, not stack traces: capturing one per rejected command would
    // dominate the run time.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    for (let issued = 0; issued < total; ) {
      for (let i = 0; i < batch; i++, issued++) redis.set(`mem:${issued}`, value).then(onOk, onError);
      // Let rejections and writes happen between batches, as a busy application would.
      await nextTurn();
      if (issued % 200_000 === 0) {
        peakPending = Math.max(peakPending, issued - ok - acquire - other.length);
        peakHeapGrowth = Math.max(peakHeapGrowth, heapUsed() - baseline);
      }
    }
    Error.stackTraceLimit = stackTraceLimit;
    const pending = total - ok - acquire - other.length;
    peakPending = Math.max(peakPending, pending);
    peakHeapGrowth = Math.max(peakHeapGrowth, heapUsed() - baseline);
    const inflight = inflightCount(redis) ?? 0;
    console.log(
      `black-holed flood: pending ${pending} (peak ${peakPending}), in flight ${inflight}, ` +
        `acquire failures ${acquire}, heap growth peak ${(peakHeapGrowth / MiB).toFixed(1)} MiB`,
    );
    expect(other.slice(0, 3)).toEqual([]);
    // Unsettled = written (bounded by the socket) + queued (1000) + waiting for room (1000).
    expect(pending).toBeLessThanOrEqual(inflight + 2 * 1000);
    expect(inflight).toBeLessThan(20_000);
    // Generous: 4 KiB per command that may be pending, plus 32 MiB of slack. An unbounded
    // offline queue of a million records would take several hundred MiB.
    expect(peakHeapGrowth).toBeLessThan((20_000 + 2 * 1000) * 4096 + 32 * MiB);

    // Healing the partition settles everything: what was written succeeds, nothing else was sent.
    await proxy.setMode('pass');
    await settled;
    expect(other.slice(0, 3)).toEqual([]);
    expect(ok).toBeGreaterThan(0);
    expect(acquire).toBeGreaterThan(total / 2);
    const stored = Number(await redis.send(['DBSIZE']));
    // Every success is a key; every acquire failure never reached the server.
    expect(stored).toBe(ok + 1);
    // Nothing of the flood stays behind once it settled.
    expect(heapUsed() - baseline).toBeLessThan(16 * MiB);
  });
});

describe('a full send queue while disconnected', () => {
  const { proxied } = useTestClients(useRedisServer());

  /** Milliseconds to reject 20,000 commands past a full queue of `capacity` while disconnected. */
  async function rejectPastCapacity(capacity: number): Promise<number> {
    let noticed: () => void = () => {};
    const disconnected = new Promise<void>((resolve) => {
      noticed = resolve;
    });
    const { proxy, client: redis } = await proxied({
      maxPendingCommands: capacity,
      acquireTimeout: 60_000,
      reconnect: () => {
        noticed();
        return 60_000;
      },
    });
    await proxy.setMode('refuse');
    await proxy.closeAllConnections();
    await disconnected;
    let rejected = 0;
    const onError = () => {
      rejected++;
    };
    // Fill the queue and its waiters, then flood past them.
    for (let i = 0; i < 2 * capacity; i++) redis.get(`full:${i}`).catch(onError);
    await nextTurn();
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) redis.get(`past:${i}`).catch(onError);
    const elapsedMs = performance.now() - started;
    Error.stackTraceLimit = stackTraceLimit;
    await nextTurn();
    expect(rejected).toBe(20_000);
    return elapsedMs;
  }

  it('rejects commands past capacity in time independent of maxPendingCommands', async () => {
    // Compared within one run, so the machine's load cancels out: a scan of the queued commands per
    // rejection would make the 8,000 queue 80 times slower than the 100 one (about 3 s against
    // 0.2 s for 20,000 rejections on a quiet machine); constant work keeps them alike.
    const small = await rejectPastCapacity(100);
    const large = await rejectPastCapacity(8000);
    expect(large / Math.max(small, 1)).toBeLessThan(8);
  });
});
