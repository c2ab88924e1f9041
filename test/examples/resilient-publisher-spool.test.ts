// Unit tests of the resilient publisher's spool (examples/resilient-publisher/spool.ts) on real
// files: FIFO round trip, segment rotation and deletion, the size bound under both overflow
// policies, and the paths of each fsync policy.
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import { SpoolFullError } from '../../examples/resilient-publisher/spool-errors.js';
import {
  countingFileSystem,
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

/** Peeks and consumes everything; returns the payloads as text. */
const drain = (spool: Spool) => drainSpool(spool).map(String);

const RECORD = RECORD_HEADER_BYTES + 20; // 28 bytes per test record

describe('spool', () => {
  it('returns records in order and keeps unconsumed ones across a reopen (at-least-once)', () => {
    const directory = scratch();
    const spool = open({ directory });
    for (let i = 0; i < 10; i++) spool.append(payload(i));
    const batch = spool.peek(4, 1 << 20);
    expect(batch.payloads.map(String)).toEqual([0, 1, 2, 3].map((i) => payload(i).toString()));
    spool.consume(batch.position);
    expect(spool.records).toBe(6);
    spool.close();

    // Consumption is not persisted: the head segment is replayed from its start after a restart.
    const reopened = open({ directory });
    expect(reopened.recovery).toMatchObject({ segments: 1, records: 10, cuts: [] });
    expect(drain(reopened)).toEqual(Array.from({ length: 10 }, (_, i) => payload(i).toString()));
    expect(segmentFiles(directory)).toEqual([]);
  });

  it('rotates segments at segmentBytes, reads one segment per batch, deletes each once consumed', () => {
    const directory = scratch();
    const spool = open({ directory, segmentBytes: 3 * RECORD, maxBytes: 1 << 20 });
    for (let i = 0; i < 20; i++) spool.append(payload(i));
    expect(segmentFiles(directory)).toHaveLength(7);
    expect(spool.segmentCount).toBe(7);
    expect(spool.bytes).toBe(20 * RECORD);
    expect(totalSegmentBytes(directory)).toBe(spool.bytes);

    const first = spool.peek(100, 1 << 20);
    expect(first.payloads).toHaveLength(3);
    const firstFile = segmentFiles(directory)[0];
    spool.consume(first.position);
    expect(segmentFiles(directory)).not.toContain(firstFile);
    spool.consume(first.position); // a second consume of the same batch changes nothing
    expect(spool.records).toBe(17);

    expect(drain(spool)).toEqual(Array.from({ length: 17 }, (_, i) => payload(i + 3).toString()));
    expect(segmentFiles(directory)).toEqual([]);
    expect(spool.bytes).toBe(0);
    expect(spool.isEmpty).toBe(true);

    // A new segment never reuses an old number.
    spool.append(payload(99));
    expect(segmentFiles(directory)).toEqual(['segment-000000000008.log']);
  });

  it('reads a record larger than maxBytes whole', () => {
    const spool = open({ directory: scratch() });
    spool.append(Buffer.alloc(5000, 1));
    spool.append(payload(1));
    const batch = spool.peek(10, 100);
    expect(batch.payloads).toEqual([Buffer.alloc(5000, 1)]);
  });

  it('refuses a record larger than a segment, and bad options, naming them', () => {
    const spool = open({ directory: scratch(), segmentBytes: 64, maxBytes: 128 });
    expect(() => spool.append(Buffer.alloc(57))).toThrow(/exceeds segmentBytes 64/);
    expect(() => Spool.open({ directory: scratch(), segmentBytes: 64, maxBytes: 100 })).toThrow(/maxBytes/);
    expect(() => Spool.open({ directory: scratch(), fsync: 'sometimes' as 'never' })).toThrow(/fsync/);
    expect(() => Spool.open({ directory: scratch(), overflow: 'grow' as 'reject' })).toThrow(/overflow/);
  });
});

describe('size bound', () => {
  it('reject: a full spool throws SpoolFullError, writes nothing, and takes records again once drained', () => {
    const directory = scratch();
    const spool = open({ directory, segmentBytes: 4 * RECORD, maxBytes: 8 * RECORD, overflow: 'reject' });
    for (let i = 0; i < 8; i++) expect(spool.append(payload(i))).toBe(0);
    const error = thrown(() => spool.append(payload(8)));
    expect(error).toBeInstanceOf(SpoolFullError);
    expect((error as Error).message).toMatch(/spool full: 224 of 224 bytes used.*not spooled.*"reject"/);
    expect(spool.bytes).toBe(8 * RECORD);
    expect(totalSegmentBytes(directory)).toBe(8 * RECORD);

    spool.consume(spool.peek(100, 1 << 20).position); // frees the first segment
    expect(spool.append(payload(8))).toBe(0);
    expect(drain(spool)).toEqual([4, 5, 6, 7, 8].map((i) => payload(i).toString()));
  });

  it('drop-oldest: whole oldest segments go, the newest records stay, the bound always holds', () => {
    const directory = scratch();
    const maxBytes = 8 * RECORD;
    const spool = open({ directory, segmentBytes: 4 * RECORD, maxBytes, overflow: 'drop-oldest' });
    const dropped: number[] = [];
    for (let i = 0; i < 30; i++) {
      dropped.push(spool.append(payload(i)));
      expect(spool.bytes).toBeLessThanOrEqual(maxBytes);
      expect(totalSegmentBytes(directory)).toBe(spool.bytes);
    }
    // Full at 8 records; every 4th append from then on drops a whole segment of 4.
    expect(dropped.flatMap((n, i) => (n > 0 ? [[i, n]] : []))).toEqual(
      [8, 12, 16, 20, 24, 28].map((i) => [i, 4]),
    );
    expect(spool.droppedRecords).toBe(24);
    expect(spool.records).toBe(6);
    expect(drain(spool)).toEqual(Array.from({ length: 6 }, (_, i) => payload(i + 24).toString()));
  });

  it('drop-oldest: a batch in flight when its segment is dropped is not counted dropped (issue 18, defect 8)', () => {
    const options = { segmentBytes: 2 * RECORD, maxBytes: 4 * RECORD, overflow: 'drop-oldest' as const };
    const spool = open({ directory: scratch(), ...options });
    for (let i = 0; i < 4; i++) spool.append(payload(i));
    const inFlight = spool.peek(1, 1 << 20); // record 0
    expect(spool.append(payload(4))).toBe(1); // drops the segment of 0 and 1: only 1 is lost
    expect(spool.droppedRecords).toBe(1);
    // The batch succeeded: it was delivered, once; a second consume changes nothing.
    expect(spool.consume(inFlight.position)).toBe(1);
    expect(spool.consume(inFlight.position)).toBe(0);
    expect(spool.records).toBe(3);
    expect(drain(spool)).toEqual([2, 3, 4].map((i) => payload(i).toString()));
  });

  it('drop-oldest: a batch in flight when its segment is dropped, and then failed, is lost and counted then', () => {
    const options = { segmentBytes: 2 * RECORD, maxBytes: 4 * RECORD, overflow: 'drop-oldest' as const };
    const spool = open({ directory: scratch(), ...options });
    for (let i = 0; i < 4; i++) spool.append(payload(i));
    spool.peek(2, 1 << 20); // records 0 and 1, never consumed
    expect(spool.append(payload(4))).toBe(0);
    const next = spool.peek(100, 1 << 20);
    expect(next.droppedInFlight).toBe(2);
    expect(spool.droppedRecords).toBe(2);
    expect(next.payloads.map(String)).toEqual([2, 3].map((i) => payload(i).toString()));
  });
});

describe('fsync policy', () => {
  it('always: the segment is synced on every append, and the directory when a segment is created', () => {
    const { fileSystem, syncs } = countingFileSystem();
    const spool = open({ directory: scratch(), fsync: 'always', fileSystem, segmentBytes: 2 * RECORD });
    spool.append(payload(0));
    expect(syncs).toEqual(['directory', 'segment']);
    spool.append(payload(1));
    spool.append(payload(2)); // rotates
    expect(syncs).toEqual(['directory', 'segment', 'segment', 'directory', 'segment']);
    spool.close();
    expect(syncs).toHaveLength(5); // nothing left unsynced
  });

  it('interval: one sync per interval after appends, none while idle, and one at close', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { fileSystem, syncs } = countingFileSystem();
    const spool = open({ directory: scratch(), fsync: 'interval', fsyncIntervalMs: 50, fileSystem });
    for (let i = 0; i < 5; i++) spool.append(payload(i));
    expect(syncs).toEqual(['directory']);
    vi.advanceTimersByTime(49);
    expect(syncs).toEqual(['directory']);
    vi.advanceTimersByTime(1);
    expect(syncs).toEqual(['directory', 'segment']);
    vi.advanceTimersByTime(500);
    expect(syncs).toHaveLength(2);
    spool.append(payload(5));
    spool.close();
    expect(syncs).toEqual(['directory', 'segment', 'segment']);
    vi.advanceTimersByTime(500);
    expect(syncs).toHaveLength(3); // the timer was cleared
  });

  it('never: no fsync at all, through rotation, recovery and close', () => {
    const { fileSystem, syncs } = countingFileSystem();
    const directory = scratch();
    const spool = open({ directory, fsync: 'never', fileSystem, segmentBytes: 2 * RECORD });
    for (let i = 0; i < 5; i++) spool.append(payload(i));
    spool.close();
    fs.appendFileSync(`${directory}/${segmentFiles(directory).at(-1)}`, Buffer.from([1, 2, 3]));
    const reopened = open({ directory, fsync: 'never', fileSystem });
    expect(reopened.recovery.cuts).toHaveLength(1);
    expect(syncs).toEqual([]);
  });
});
