// Recovery when the spool opens: every segment file is scanned, oldest first. Good records are kept
// wherever they are; a damaged stretch between good records is kept in the file and skipped when
// replaying (record-scan.ts); a torn or damaged tail is cut off its file so that it is never
// replayed, and the cut made durable unless the fsync policy is `never`.
import { scanStretch } from './record-scan.js';
import { newSegment, SEGMENT_NAME, type Segment } from './segment-files.js';
import type { ResolvedSpoolOptions, SpoolFileSystem } from './spool-options.js';

/** What `Spool.open` found and repaired. */
export interface SpoolRecovery {
  /** Segments kept, and the good records in them (all to be replayed). */
  readonly segments: number;
  readonly records: number;
  /** Each cut: the file, where its good records end, how many bytes went, and why. */
  readonly cuts: readonly { file: string; offset: number; bytes: number; reason: 'torn' | 'corrupt' }[];
  /**
   * Damaged stretches kept in place and skipped. `records` is a lower bound (1): how many records
   * a stretch held cannot be told once their lengths are gone; `bytes` says how much it covers.
   */
  readonly damaged: readonly { file: string; offset: number; bytes: number; records: number }[];
  /** Files deleted because they held no good record. */
  readonly emptyRemoved: number;
  /** The number the next segment file gets. */
  readonly nextId: number;
}

export function recoverSegments(options: ResolvedSpoolOptions): {
  segments: Segment[];
  recovery: SpoolRecovery;
} {
  const fs = options.fileSystem;
  const ids = fs
    .readdirSync(options.directory)
    .map((name) => SEGMENT_NAME.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const segments: Segment[] = [];
  const cuts: SpoolRecovery['cuts'][number][] = [];
  const damaged: SpoolRecovery['damaged'][number][] = [];
  let emptyRemoved = 0;
  let records = 0;
  for (const id of ids) {
    const segment = newSegment(options.directory, id);
    const bytes = fs.readFileSync(segment.path);
    // A record cannot be longer than its file; anything claiming more is damage.
    const scan = scanStretch(bytes, 0, bytes.length);
    if (scan.tail !== 'end') {
      truncate(fs, segment.path, scan.validEnd, options.fsync !== 'never');
      const reason = scan.tail;
      cuts.push({ file: segment.path, offset: scan.validEnd, bytes: bytes.length - scan.validEnd, reason });
    }
    if (scan.records.length === 0) {
      fs.unlinkSync(segment.path);
      emptyRemoved++;
      continue;
    }
    for (const hole of scan.damaged) {
      damaged.push({ file: segment.path, offset: hole.offset, bytes: hole.end - hole.offset, records: 1 });
    }
    segment.holes = scan.damaged;
    segment.bytes = scan.validEnd;
    segment.records = scan.records.length;
    records += segment.records;
    segments.push(segment);
  }
  const nextId = ids.length === 0 ? 1 : ids[ids.length - 1]! + 1;
  return {
    segments,
    recovery: { segments: segments.length, records, cuts, damaged, emptyRemoved, nextId },
  };
}

function truncate(fs: SpoolFileSystem, file: string, length: number, durable: boolean): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.ftruncateSync(fd, length);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
