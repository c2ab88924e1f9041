// Segment files on disk: their names (ordered by number), and recovery on open, which keeps every
// good record and cuts a torn or corrupt tail off its file so that it is never replayed.
import path from 'node:path';
import { scanRecords } from './record-codec.js';
import type { ResolvedSpoolOptions, SpoolFileSystem } from './spool-options.js';

const NAME = /^segment-(\d{12})\.log$/;

/** One segment: an append-only file of records. */
export interface Segment {
  readonly id: number;
  readonly path: string;
  /** Size of the file: every byte in it is a good record. */
  bytes: number;
  /** Records in the file. */
  records: number;
  /** Bytes at the start already replayed (the head segment only). */
  readOffset: number;
  /** Records at the start already replayed. */
  consumed: number;
  /** Open for appending while this is the tail. */
  writeFd: number | undefined;
  /** Open for reading while this is the head. */
  readFd: number | undefined;
}

/** What `Spool.open` found and repaired. */
export interface SpoolRecovery {
  /** Segments kept, and the records in them (all to be replayed). */
  readonly segments: number;
  readonly records: number;
  /** Each cut: the file, where its good records end, how many bytes went, and why. */
  readonly cuts: readonly { file: string; offset: number; bytes: number; reason: 'torn' | 'corrupt' }[];
  /** Files deleted because they held no good record. */
  readonly emptyRemoved: number;
  /** The number the next segment file gets. */
  readonly nextId: number;
}

function segmentPath(directory: string, id: number): string {
  return path.join(directory, `segment-${String(id).padStart(12, '0')}.log`);
}

export function newSegment(directory: string, id: number, writeFd: number | undefined): Segment {
  return {
    id,
    path: segmentPath(directory, id),
    bytes: 0,
    records: 0,
    readOffset: 0,
    consumed: 0,
    writeFd,
    readFd: undefined,
  };
}

/**
 * Scans every segment file in `directory`, oldest first. A file whose records stop short of its end
 * (a write torn by a crash or power loss, or bytes that fail their checksum) is truncated to its
 * last good record, and the truncation made durable unless the fsync policy is `never`. Records
 * after a corrupt one in the same file are lost with it: their framing can no longer be trusted.
 */
export function recoverSegments(options: ResolvedSpoolOptions): {
  segments: Segment[];
  recovery: SpoolRecovery;
} {
  const fs = options.fileSystem;
  fs.mkdirSync(options.directory, { recursive: true });
  const ids = fs
    .readdirSync(options.directory)
    .map((name) => NAME.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const segments: Segment[] = [];
  const cuts: SpoolRecovery['cuts'][number][] = [];
  let emptyRemoved = 0;
  let records = 0;
  for (const id of ids) {
    const segment = newSegment(options.directory, id, undefined);
    const bytes = fs.readFileSync(segment.path);
    // A record cannot be longer than its file; anything claiming more is cut.
    const scan = scanRecords(bytes, 0, bytes.length);
    if (scan.stop !== 'end') {
      truncate(fs, segment.path, scan.validEnd, options.fsync !== 'never');
      cuts.push({
        file: segment.path,
        offset: scan.validEnd,
        bytes: bytes.length - scan.validEnd,
        reason: scan.stop,
      });
    }
    if (scan.records.length === 0) {
      fs.unlinkSync(segment.path);
      emptyRemoved++;
      continue;
    }
    segment.bytes = scan.validEnd;
    segment.records = scan.records.length;
    records += segment.records;
    segments.push(segment);
  }
  const nextId = ids.length === 0 ? 1 : ids[ids.length - 1]! + 1;
  return { segments, recovery: { segments: segments.length, records, cuts, emptyRemoved, nextId } };
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

/** Makes a created or deleted file name durable: the directory entry is data too. */
export function syncDirectory(fs: SpoolFileSystem, directory: string): void {
  const fd = fs.openSync(directory, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
