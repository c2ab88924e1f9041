// Reading a whole stretch of a segment file despite damage inside it (issue 18, defect 3). The
// length field is covered by the checksum, so after a damaged record the scan may resynchronise
// on the next offset where a record's length is in range and its checksum holds: a false match
// needs a 1-in-2^32 checksum collision. A flipped bit then costs one record, not the rest of a
// 4 MiB segment. Damage with no good record after it is a tail, cut as before.
import {
  RECORD_HEADER_BYTES,
  recordEnd,
  type ScannedRecord,
  type ScanStop,
  scanRecords,
} from './record-codec.js';

/** A stretch of bytes, counted like `baseOffset`, that holds no good record: skip it when reading. */
export interface Damage {
  readonly offset: number;
  readonly end: number;
}

export interface StretchScan {
  /** Every good record, in order. */
  readonly records: ScannedRecord[];
  /** Damaged stretches between good records. */
  readonly damaged: Damage[];
  /** Just past the last good record; anything after it is the tail to cut. */
  readonly validEnd: number;
  /** Why the tail after `validEnd` is no record: `end` when there is none. A tail of zeros is
   * `torn` (a file extended but not yet written when the power went), not damage. */
  readonly tail: ScanStop;
}

/** Scans all of `bytes` (which starts at `baseOffset` of its file), resynchronising after damage. */
export function scanStretch(bytes: Buffer, baseOffset: number, maxPayloadBytes: number): StretchScan {
  const records: ScannedRecord[] = [];
  const damaged: Damage[] = [];
  let position = 0;
  for (;;) {
    const scan = scanRecords(bytes.subarray(position), baseOffset + position, maxPayloadBytes);
    for (const record of scan.records) records.push(record);
    const stopped = scan.validEnd - baseOffset;
    if (scan.stop === 'end') return { records, damaged, validEnd: scan.validEnd, tail: 'end' };
    const next = nextRecord(bytes, stopped + 1, maxPayloadBytes);
    if (next === undefined) {
      const tail = scan.stop === 'torn' || isZero(bytes, stopped) ? 'torn' : 'corrupt';
      return { records, damaged, validEnd: scan.validEnd, tail };
    }
    damaged.push({ offset: scan.validEnd, end: baseOffset + next });
    position = next;
  }
}

/** The first offset at or after `from` where a good record starts. */
function nextRecord(bytes: Buffer, from: number, maxPayloadBytes: number): number | undefined {
  for (let position = from; position + RECORD_HEADER_BYTES < bytes.length; position++) {
    if (typeof recordEnd(bytes, position, maxPayloadBytes) === 'number') return position;
  }
  return undefined;
}

function isZero(bytes: Buffer, from: number): boolean {
  for (let index = from; index < bytes.length; index++) if (bytes[index] !== 0) return false;
  return true;
}
