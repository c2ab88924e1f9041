// Crash safety of the resilient publisher's spool: a torn or corrupt record at the end of a
// segment file is found when the spool opens, cut off the file, and never replayed; everything
// before it is replayed in order. Damage in the middle of a file: resilient-publisher-spool-corruption.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import type { SpoolOptions } from '../../examples/resilient-publisher/spool-options.js';
import {
  drainSpool,
  lastSegment,
  payload,
  segmentFiles,
  useScratchDirs,
} from './resilient-publisher-spool-kit.js';

const scratch = useScratchDirs();
const spools: Spool[] = [];
afterEach(() => {
  for (const spool of spools.splice(0)) spool.close();
});

const RECORD = RECORD_HEADER_BYTES + 20;

function open(options: Partial<SpoolOptions> & { directory: string }): Spool {
  const spool = Spool.open({ fsync: 'always', ...options });
  spools.push(spool);
  return spool;
}

/** A closed spool of `count` records in segments of `perSegment` records. */
function written(count: number, perSegment = 100): string {
  const directory = scratch();
  const spool = Spool.open({ directory, fsync: 'never', segmentBytes: perSegment * RECORD });
  for (let i = 0; i < count; i++) spool.append(payload(i));
  spool.close();
  return directory;
}

const readAll = (spool: Spool) => drainSpool(spool).map(String);

const expected = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => payload(from + i).toString());

describe('spool recovery on open', () => {
  it('cuts a last record torn at any point, keeps the ones before it', () => {
    for (const missing of [1, 5, RECORD_HEADER_BYTES, RECORD - 1]) {
      const directory = written(5);
      const file = lastSegment(directory);
      fs.truncateSync(file, 5 * RECORD - missing);
      const spool = open({ directory });
      expect(spool.recovery.cuts, `${missing} bytes missing`).toEqual([
        { file, offset: 4 * RECORD, bytes: RECORD - missing, reason: 'torn' },
      ]);
      expect(fs.statSync(file).size).toBe(4 * RECORD);
      expect(readAll(spool)).toEqual(expected(4));
    }
  });

  it('cuts a last record whose payload, length or checksum was damaged', () => {
    for (const offsetInRecord of [0, 2, 5, RECORD_HEADER_BYTES, RECORD - 1]) {
      const directory = written(5);
      const file = lastSegment(directory);
      const bytes = fs.readFileSync(file);
      bytes[4 * RECORD + offsetInRecord]! ^= 0x10;
      fs.writeFileSync(file, bytes);
      const spool = open({ directory });
      const [cut] = spool.recovery.cuts;
      expect(cut?.offset, `byte ${offsetInRecord}`).toBe(4 * RECORD);
      expect(cut?.reason).toMatch(/corrupt|torn/); // a grown length reads as torn
      expect(readAll(spool)).toEqual(expected(4));
    }
  });

  it('cuts garbage after the last record: a half-written header, zeros from a power cut', () => {
    for (const garbage of [Buffer.from([7, 0, 0]), Buffer.alloc(4096)]) {
      const directory = written(3);
      fs.appendFileSync(lastSegment(directory), garbage);
      const spool = open({ directory });
      expect(spool.recovery.cuts).toMatchObject([{ offset: 3 * RECORD, bytes: garbage.length }]);
      expect(readAll(spool)).toEqual(expected(3));
    }
  });

  it('deletes a segment left with no good record, and keeps the older ones in order', () => {
    const directory = written(7, 3); // segments of 3, 3, 1 records
    const files = segmentFiles(directory);
    expect(files).toHaveLength(3);
    fs.truncateSync(path.join(directory, files[2]!), RECORD - 3);
    const spool = open({ directory });
    expect(spool.recovery).toMatchObject({ segments: 2, records: 6, emptyRemoved: 1 });
    expect(segmentFiles(directory)).toEqual(files.slice(0, 2));
    // New appends go to a fresh segment after the recovered ones, and are replayed after them.
    spool.append(payload(100));
    expect(segmentFiles(directory)).toEqual([...files.slice(0, 2), 'segment-000000000004.log']);
    expect(readAll(spool)).toEqual([...expected(6), payload(100).toString()]);
  });

  it('repairs each damaged segment on its own', () => {
    const directory = written(6, 3);
    const [first, second] = segmentFiles(directory).map((name) => path.join(directory, name));
    fs.truncateSync(first!, 3 * RECORD - 2);
    fs.truncateSync(second!, 3 * RECORD - 2);
    const spool = open({ directory });
    expect(spool.recovery.cuts.map((cut) => cut.file)).toEqual([first, second]);
    expect(readAll(spool)).toEqual([...expected(2), ...expected(2, 3)]);
  });

  it('reopening a repaired spool finds nothing more to cut', () => {
    const directory = written(4);
    fs.appendFileSync(lastSegment(directory), Buffer.from('torn'));
    open({ directory }).close();
    const again = open({ directory });
    expect(again.recovery).toMatchObject({ cuts: [], records: 4 });
  });
});
