// Disk faults seen through the resilient publisher, against a real redis-server (behind the fault
// proxy where Redis must fail): what `publish` settles with when the spool's disk fails, that the
// host process never sees an uncaught error from the spool or the replayer, and that the counters
// add up. The spool's file system is the test seam (resilient-publisher-faulty-fs.ts). Each test
// names the item of issue 18 it proves; each failed before its fix.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readUniqueEvents } from '../../examples/resilient-publisher/consumer.js';
import type { LogEntry } from '../../examples/resilient-publisher/monitor.js';
import { type PublisherRedis, ResilientPublisher } from '../../examples/resilient-publisher/publisher.js';
import { encodeEvent, RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import { SpoolSyncError } from '../../examples/resilient-publisher/spool-errors.js';
import type { SpoolOptions } from '../../examples/resilient-publisher/spool-options.js';
import type { RespireClient } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { FaultyFileSystem } from './resilient-publisher-faulty-fs.js';
import { Progress } from './resilient-publisher-kit.js';
import { segmentFiles, useScratchDirs } from './resilient-publisher-spool-kit.js';

const { open, proxied } = useTestClients(useRedisServer());
const scratch = useScratchDirs();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Writes through the proxy fail fast (it resets them); reconnects are quick, so nothing waits long. */
const CLIENT = {
  commandTimeout: 50,
  acquireTimeout: 50,
  connectTimeout: 1_000,
  reconnect: () => 10,
  circuitBreaker: null,
};

interface Rig {
  publisher: ResilientPublisher;
  logs: LogEntry[];
  progress: Progress;
  direct: RespireClient;
}

/** A publisher on `redis` (default: a client whose every write fails, so events are spooled). */
async function rig(stream: string, spool: SpoolOptions, redis?: PublisherRedis): Promise<Rig> {
  if (redis === undefined) {
    const { proxy, client } = await proxied(CLIENT);
    await proxy.setMode('reset');
    redis = client;
  }
  const logs: LogEntry[] = [];
  const progress = new Progress();
  const publisher = new ResilientPublisher(redis, {
    stream,
    deadlineMs: 100,
    spool,
    replayRetryMs: 5,
    logger: (entry) => {
      logs.push(entry);
      progress.notify();
    },
  });
  cleanups.push(() => publisher.close());
  return { publisher, logs, progress, direct: await open() };
}

const keysIn = async (direct: RespireClient, stream: string) =>
  (await readUniqueEvents(direct, stream)).events.map((event) => event.key);

describe('publish and the disk', () => {
  it('defect 4: a publish rejected for a failed fsync leaves nothing to replay', async () => {
    const fileSystem = new FaultyFileSystem();
    const { publisher, direct } = await rig('faults:sync', {
      directory: scratch(),
      fsync: 'always',
      fileSystem,
    });
    fileSystem.fail({ call: 'fsync', code: 'EIO', path: /\.log$/ });
    await expect(publisher.publish('lost', { key: 'k-lost' })).rejects.toBeInstanceOf(SpoolSyncError);
    expect(publisher.stats).toMatchObject({ spooled: 0, rejected: 1, spooledEvents: 0 });
    await expect(publisher.publish('kept', { key: 'k-kept' })).resolves.toBe('spooled');
    await publisher.close();
    // What a restart with Redis back would replay: only the acknowledged event.
    const replayer = new ResilientPublisher(direct, {
      stream: 'faults:sync',
      spool: publisher.spool.options,
    });
    cleanups.push(() => replayer.close());
    await replayer.drained();
    expect(await keysIn(direct, 'faults:sync')).toEqual(['k-kept']);
  });

  it('defect 4: a publish whose event was spooled resolves spooled even if starting replay fails', async () => {
    const fileSystem = new FaultyFileSystem();
    const { publisher, logs } = await rig('faults:kick', {
      directory: scratch(),
      fsync: 'never',
      fileSystem,
    });
    fileSystem.fail({ call: 'read', code: 'EIO' }); // the replayer's first read of the spool
    await expect(publisher.publish('first')).resolves.toBe('spooled');
    expect(publisher.stats).toMatchObject({ spooled: 1, rejected: 0 });
    expect(logs.map((entry) => entry.event)).toContain('spool-read-failed');
  });

  it('defect 5: a failed background fsync is logged and counted; the host keeps running', async () => {
    const fileSystem = new FaultyFileSystem();
    const spool = { directory: scratch(), fsync: 'interval' as const, fsyncIntervalMs: 1, fileSystem };
    const { publisher, logs, progress } = await rig('faults:interval', spool);
    fileSystem.fail({ call: 'fsync', code: 'EIO', path: /\.log$/ });
    await expect(publisher.publish('a')).resolves.toBe('spooled');
    await progress.until('the sync failure log', () =>
      logs.some((entry) => entry.event === 'spool-sync-failed'),
    );
    expect(logs.find((entry) => entry.event === 'spool-sync-failed')).toMatchObject({
      level: 'error',
      records: 1,
      error: expect.stringMatching(/EIO/),
    });
    await expect(publisher.publish('b')).resolves.toBe('spooled');
  });
});

describe('the replayer and the disk', () => {
  it('also: an error inside a replay callback is logged and retried, never an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(() => process.off('unhandledRejection', onUnhandled));
    const directory = scratch();
    const filler = Spool.open({ directory, fsync: 'never', segmentBytes: 2 * (RECORD_HEADER_BYTES + 20) });
    for (let i = 0; i < 4; i++) filler.append(encodeEvent(`k${i}`, `data ${i}`.padEnd(15, '.')));
    filler.close();
    expect(segmentFiles(directory)).toHaveLength(2);

    const fileSystem = new FaultyFileSystem()
      // Read after the first batch succeeded, inside its callback; then deleting the second fails.
      .fail({ call: 'read', code: 'EIO', path: /segment-000000000002/ })
      .fail({ call: 'unlink', code: 'EIO', path: /segment-000000000002/ });
    const spool = { directory, fsync: 'never' as const, fileSystem };
    const { publisher, logs, direct } = await rig('faults:replay', spool, await open());
    await publisher.drained();
    expect(await keysIn(direct, 'faults:replay')).toEqual(['k0', 'k1', 'k2', 'k3']);
    expect(publisher.stats).toMatchObject({ replayed: 4, spooledEvents: 0 });
    expect(logs.map((entry) => entry.event)).toEqual(
      expect.arrayContaining(['spool-read-failed', 'spool-unlink-failed', 'spool-drained']),
    );
    expect(unhandled).toEqual([]);
  });

  it('defect 8: a batch in flight when drop-oldest deletes its segment counts once: replayed', async () => {
    const direct = await open();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let evals = 0;
    const { proxy, client } = await proxied(CLIENT);
    await proxy.setMode('reset');
    // Direct writes fail; the first replay batch waits at the gate, then goes through to Redis.
    const redis: PublisherRedis = {
      xadd: client.xadd.bind(client),
      circuit: undefined,
      eval: async (...args: Parameters<RespireClient['eval']>) => {
        if (evals++ === 0) await gate;
        return direct.eval(...args);
      },
    } as PublisherRedis;
    const data = 'x'.repeat(30);
    const record = RECORD_HEADER_BYTES + encodeEvent('k0', data).length;
    const spool = { directory: scratch(), fsync: 'never' as const, overflow: 'drop-oldest' as const };
    const { publisher, logs } = await rig(
      'faults:drop',
      { ...spool, segmentBytes: 2 * record, maxBytes: 4 * record },
      redis,
    );
    for (let i = 0; i < 5; i++)
      await expect(publisher.publish(data, { key: `k${i}` })).resolves.toBe('spooled');
    // k0 is in flight; appending k4 deleted the segment of k0 and k1: only k1 is lost.
    expect(publisher.stats).toMatchObject({ spooled: 5, dropped: 1, replayed: 0 });
    release();
    await publisher.drained();
    const { stats } = publisher;
    expect(await keysIn(direct, 'faults:drop')).toEqual(['k0', 'k2', 'k3', 'k4']);
    expect(stats).toMatchObject({ dropped: 1, replayed: 4 });
    expect(stats.replayed + stats.dropped).toBe(stats.spooled);
    const drops = logs.filter((entry) => entry.event === 'spool-dropped');
    expect(drops.reduce((sum, entry) => sum + (entry.droppedEvents as number), 0)).toBe(1);
  });

  it('defect 3: damage found when the spool opens is counted in stats.corrupt and logged with a count', async () => {
    const directory = scratch();
    const filler = Spool.open({ directory, fsync: 'never' });
    for (let i = 0; i < 3; i++) filler.append(encodeEvent(`k${i}`, 'data'));
    filler.close();
    const file = `${directory}/${segmentFiles(directory)[0]}`;
    const bytes = fs.readFileSync(file);
    bytes[RECORD_HEADER_BYTES + 2]! ^= 1; // in k0's payload
    fs.writeFileSync(file, bytes);
    const { publisher, logs, direct } = await rig(
      'faults:corrupt',
      { directory, fsync: 'never' },
      await open(),
    );
    await publisher.drained();
    expect(publisher.stats).toMatchObject({ corrupt: 1, replayed: 2 });
    expect(logs.find((entry) => entry.event === 'spool-corrupt')).toMatchObject({
      level: 'error',
      records: 1,
    });
    expect(await keysIn(direct, 'faults:corrupt')).toEqual(['k1', 'k2']);
  });
});
