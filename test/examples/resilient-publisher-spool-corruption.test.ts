// Issue 18, defect 3: a damaged record in the middle of a segment (one flipped bit, a bad sector)
// loses only itself. The length field is covered by the checksum, so the scan resynchronises on
// the next record whose checksum holds; the damage is reported with a record count, both when the
// spool opens and when replay runs into it. Before the fix, everything after the damage in its
// segment was lost (cut at open, skipped while running) and reported as at most one cut.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import { payload, segmentFiles, useScratchDirs } from './resilient-publisher-spool-kit.js';

const scratch = useScratchDirs();
const spools: Spool[] = [];
afterEach(() => {
  for (const spool of spools.splice(0)) spool.close();
});

const RECORD = RECORD_HEADER_BYTES + 20;

function open(directory: string): Spool {
  const spool = Spool.open({ directory, fsync: 'always' });
  spools.push(spool);
  return spool;
}

/** A closed spool of `count` records in segments of `perSegment` records; its segment paths. */
function written(count: number, perSegment = 100): { directory: string; files: string[] } {
  const directory = scratch();
  const spool = Spool.open({ directory, fsync: 'never', segmentBytes: perSegment * RECORD });
  for (let i = 0; i < count; i++) spool.append(payload(i));
  spool.close();
  return { directory, files: segmentFiles(directory).map((name) => path.join(directory, name)) };
}

function damage(file: string, offset: number, change: (byte: number) => number, length = 1): void {
  const bytes = fs.readFileSync(file);
  for (let i = offset; i < offset + length; i++) bytes[i] = change(bytes[i]!);
  fs.writeFileSync(file, bytes);
}

function readAll(spool: Spool): { events: number[]; skipped: number } {
  const events: number[] = [];
  let skipped = 0;
  for (;;) {
    const batch = spool.peek(1000, 1 << 20);
    skipped += batch.skippedCorrupt;
    if (batch.payloads.length === 0) return { events, skipped };
    events.push(...batch.payloads.map((p) => Number(/^event-(\d+)-/.exec(p.toString())![1])));
    spool.consume(batch.position);
  }
}

const without = (count: number, ...lost: number[]) =>
  Array.from({ length: count }, (_, i) => i).filter((i) => !lost.includes(i));

describe('damage found when the spool opens', () => {
  it('one flipped bit anywhere in a record loses that record only', () => {
    for (const offsetInRecord of [0, 3, 5, RECORD_HEADER_BYTES, RECORD - 1]) {
      const { directory, files } = written(9);
      damage(files[0]!, 3 * RECORD + offsetInRecord, (byte) => byte ^ 0x04);
      const spool = open(directory);
      expect(spool.recovery.damaged, `byte ${offsetInRecord}`).toEqual([
        { file: files[0], offset: 3 * RECORD, bytes: RECORD, records: 1 },
      ]);
      expect(spool.recovery).toMatchObject({ records: 8, cuts: [] });
      expect(fs.statSync(files[0]!).size).toBe(9 * RECORD); // nothing cut
      expect(readAll(spool)).toEqual({ events: without(9, 3), skipped: 0 }); // counted once, at open
    }
  });

  it('a zeroed sector loses the records it touches, reported as one damaged stretch', () => {
    const { directory, files } = written(9);
    damage(files[0]!, 2 * RECORD + 5, () => 0, 64); // into records 2, 3 and 4
    const spool = open(directory);
    expect(spool.recovery.damaged).toEqual([
      { file: files[0], offset: 2 * RECORD, bytes: 3 * RECORD, records: 1 },
    ]);
    expect(readAll(spool).events).toEqual(without(9, 2, 3, 4));
  });

  it('a zero-filled tail (a power cut) is a torn tail, not damage', () => {
    const { directory, files } = written(3);
    fs.appendFileSync(files[0]!, Buffer.alloc(4096));
    const spool = open(directory);
    expect(spool.recovery.cuts).toMatchObject([{ offset: 3 * RECORD, bytes: 4096, reason: 'torn' }]);
    expect(spool.recovery.damaged).toEqual([]);
  });
});

describe('damage found while replaying', () => {
  it('skips only the damaged record and counts exactly the records lost', () => {
    const { directory, files } = written(6, 3);
    const spool = open(directory);
    damage(files[0]!, RECORD + RECORD_HEADER_BYTES, (byte) => byte ^ 0xff); // record 1
    expect(readAll(spool)).toEqual({ events: without(6, 1), skipped: 1 });
    expect(segmentFiles(directory)).toEqual([]);
    expect(spool.isEmpty).toBe(true);
  });

  it('counts every record a zeroed stretch took, and goes on past it', () => {
    const { directory, files } = written(8);
    const spool = open(directory);
    damage(files[0]!, 2 * RECORD + 1, () => 0, 2 * RECORD); // records 2, 3 and 4
    expect(readAll(spool)).toEqual({ events: without(8, 2, 3, 4), skipped: 3 });
    expect(spool.records).toBe(0);
  });
});
