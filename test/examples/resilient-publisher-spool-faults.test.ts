// Disk faults under the resilient publisher's spool, injected through its file-system seam
// (resilient-publisher-faulty-fs.ts): a full disk cutting a write short, no room or inode for a
// new segment, EIO from fsync in the foreground and in the background, a failing unlink, and the
// durability of a freshly created spool directory. Each test names the defect of issue 18 it
// proves; every one failed before its fix. The full-disk cases run again on a real tmpfs in
// resilient-publisher-tmpfs.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import type { Spool, SpoolFault } from '../../examples/resilient-publisher/spool.js';
import { SpoolSyncError } from '../../examples/resilient-publisher/spool-errors.js';
import { FaultyFileSystem } from './resilient-publisher-faulty-fs.js';
import {
  drainSpool,
  payload,
  segmentFiles,
  thrown,
  totalSegmentBytes,
  useScratchDirs,
  useSpools,
} from './resilient-publisher-spool-kit.js';

const scratch = useScratchDirs();
const open = useSpools();
afterEach(() => {
  vi.useRealTimers();
});

const RECORD = RECORD_HEADER_BYTES + 20;

/** Closes `spool` and opens its directory again with the real file system: what a restart finds. */
function reopen(spool: Spool): Spool {
  spool.close();
  return open({ directory: spool.options.directory });
}

/** Appends `indexes`, keeping those whose append returned (acknowledged as spooled). */
function appendAll(spool: Spool, indexes: number[]): { acked: string[]; errors: unknown[] } {
  const acked: string[] = [];
  const errors: unknown[] = [];
  for (const index of indexes) {
    try {
      spool.append(payload(index));
      acked.push(payload(index).toString());
    } catch (error) {
      errors.push(error);
    }
  }
  return { acked, errors };
}

const texts = (spool: Spool) => drainSpool(spool).map(String);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('a full disk (issue 18)', () => {
  it('defect 1: a write cut short by ENOSPC loses no later acknowledged record of its segment', () => {
    const fileSystem = new FaultyFileSystem();
    const spool = open({ directory: scratch(), fileSystem });
    const before = appendAll(spool, range(0, 3));
    // The disk fills up inside record 3: 11 of its bytes land, then ENOSPC; record 4 fails too.
    fileSystem.fail({ call: 'write', code: 'ENOSPC', shortBytes: 11, times: 2 });
    const full = appendAll(spool, range(3, 5));
    expect(full.errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC', 'ENOSPC']);
    fileSystem.heal(); // room again
    const after = appendAll(spool, range(5, 9));
    const acked = [...before.acked, ...after.acked];
    expect(acked).toHaveLength(7);
    expect(totalSegmentBytes(spool.options.directory)).toBe(7 * RECORD);

    // Live replay and a restart both find every acknowledged record, in order, and nothing else.
    const restarted = reopen(spool);
    expect(restarted.recovery.cuts).toEqual([]);
    expect(texts(restarted)).toEqual(acked);
  });

  it('defect 2: a segment that cannot be created (ENOSPC, no inode) does not break later rotations', () => {
    const fileSystem = new FaultyFileSystem();
    const directory = scratch();
    const spool = open({ directory, fileSystem, segmentBytes: 2 * RECORD });
    const before = appendAll(spool, range(0, 2)); // fills segment 1
    fileSystem.fail({ call: 'open', code: 'ENOSPC', path: /segment-.*\.log$/, times: 2 });
    const full = appendAll(spool, range(2, 4));
    expect(full.errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC', 'ENOSPC']);
    fileSystem.heal();
    const after = appendAll(spool, range(4, 9));
    expect(after.errors).toEqual([]);
    expect(spool.records).toBe(7);
    expect(spool.bytes).toBe(totalSegmentBytes(directory));
    expect(texts(spool)).toEqual([...before.acked, ...after.acked]);
    expect(segmentFiles(directory)).toEqual([]);
  });
});

describe('fsync failures (issue 18)', () => {
  it('defect 4: under always, an append whose fsync fails leaves nothing behind and says so', () => {
    const fileSystem = new FaultyFileSystem();
    const directory = scratch();
    const spool = open({ directory, fileSystem, fsync: 'always' });
    appendAll(spool, range(0, 2));
    fileSystem.fail({ call: 'fsync', code: 'EIO', path: /\.log$/ });
    const error = thrown(() => spool.append(payload(2)));
    expect(error).toBeInstanceOf(SpoolSyncError);
    expect(error).toMatchObject({ kept: false, cause: { code: 'EIO' } });
    expect((error as Error).message).toMatch(/not spooled/);
    expect(spool.records).toBe(2);
    expect(totalSegmentBytes(directory)).toBe(2 * RECORD);
    appendAll(spool, [3]);
    expect(texts(reopen(spool))).toEqual([0, 1, 3].map((i) => payload(i).toString()));
  });

  it('defect 4: when the failed record cannot be removed either, it stays spooled, flagged durability unknown', () => {
    const fileSystem = new FaultyFileSystem();
    const spool = open({ directory: scratch(), fileSystem, fsync: 'always' });
    appendAll(spool, [0]);
    fileSystem.fail({ call: 'fsync', code: 'EIO', path: /\.log$/ }).fail({ call: 'ftruncate', code: 'EIO' });
    const error = thrown(() => spool.append(payload(1)));
    expect(error).toMatchObject({ name: 'SpoolSyncError', kept: true });
    expect((error as Error).message).toMatch(/spooled, durability unknown/);
    expect(spool.records).toBe(2);
    expect(texts(spool)).toEqual([0, 1].map((i) => payload(i).toString()));
  });

  it('defect 5: under interval, a failed background fsync is reported, not thrown from the timer', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const fileSystem = new FaultyFileSystem();
    const spool = open({ directory: scratch(), fileSystem, fsync: 'interval', fsyncIntervalMs: 10 });
    const faults: SpoolFault[] = [];
    spool.onFault = (fault) => faults.push(fault);
    appendAll(spool, range(0, 3));
    fileSystem.fail({ call: 'fsync', code: 'EIO', path: /\.log$/ });
    expect(() => vi.advanceTimersByTime(10)).not.toThrow();
    expect(faults).toMatchObject([{ kind: 'sync-failed', records: 3, error: { code: 'EIO' } }]);
    // The spool keeps working: later appends go to a fresh segment and are synced again.
    appendAll(spool, range(3, 5));
    vi.advanceTimersByTime(10);
    expect(faults).toHaveLength(1);
    expect(texts(spool)).toEqual(range(0, 5).map((i) => payload(i).toString()));
  });
});

describe('deleting and creating files (issue 18)', () => {
  it('also: a failing unlink keeps the file counted until a retry deletes it', () => {
    const fileSystem = new FaultyFileSystem();
    const directory = scratch();
    const spool = open({ directory, fileSystem, segmentBytes: 2 * RECORD });
    const faults: SpoolFault[] = [];
    spool.onFault = (fault) => faults.push(fault);
    appendAll(spool, range(0, 5)); // segments of 2, 2, 1
    fileSystem.fail({ call: 'unlink', code: 'EIO' });
    const first = spool.peek(100, 1 << 20);
    expect(() => spool.consume(first.position)).not.toThrow();
    expect(faults).toMatchObject([{ kind: 'unlink-failed', error: { code: 'EIO' } }]);
    expect(spool.records).toBe(3);
    expect(spool.bytes).toBe(totalSegmentBytes(directory));
    expect(segmentFiles(directory)).toHaveLength(3);
    expect(texts(spool)).toEqual([2, 3, 4].map((i) => payload(i).toString()));
    expect(segmentFiles(directory)).toEqual([]);
    expect(spool.bytes).toBe(0);
  });

  it('defect 7: a new spool directory is made durable in its parent, level by level', () => {
    const fileSystem = new FaultyFileSystem();
    const root = scratch();
    const directory = path.join(root, 'a', 'b');
    open({ directory, fileSystem, fsync: 'always' });
    expect(fs.existsSync(directory)).toBe(true);
    // The parent of each created level, the top one last made durable, before any segment exists.
    expect(fileSystem.syncedPaths).toEqual([path.join(root, 'a'), root]);
  });

  it('defect 7: an existing directory is not synced again; never means never', () => {
    const fileSystem = new FaultyFileSystem();
    const directory = scratch();
    open({ directory, fileSystem, fsync: 'always' }).close();
    open({ directory: path.join(directory, 'x'), fileSystem, fsync: 'never' });
    expect(fileSystem.syncedPaths).toEqual([]);
  });
});
