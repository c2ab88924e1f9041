// Segment files on disk: their names (ordered by number), the spool directory made durable, and the
// file I/O of one segment: creating it, appending a record at a known position, reading, closing.
import path from 'node:path';
import type { Damage } from './record-scan.js';
import type { SpoolFileSystem } from './spool-options.js';

/** One segment: an append-only file of records. */
export interface Segment {
  readonly id: number;
  readonly path: string;
  /** Where the records end: every byte before is a good record or a known damaged stretch. */
  bytes: number;
  /** Bytes past `bytes` that a failed write left and a failed cut could not remove: counted
   * against `maxBytes` until the file is deleted, never read, cut as a torn tail on open. */
  stray: number;
  /** Good records in the file. */
  records: number;
  /** Bytes at the start already replayed (the head segment only). */
  readOffset: number;
  /** Records at the start already replayed. */
  consumed: number;
  /** Damaged stretches (found at open or while replaying), oldest first, skipped when reading. */
  holes: Damage[];
  /** Open for appending while this is the tail. */
  writeFd: number | undefined;
  /** Open for reading while this is the head. */
  readFd: number | undefined;
}

export const SEGMENT_NAME = /^segment-(\d{12})\.log$/;

export function newSegment(directory: string, id: number): Segment {
  return {
    id,
    path: path.join(directory, `segment-${String(id).padStart(12, '0')}.log`),
    bytes: 0,
    stray: 0,
    records: 0,
    readOffset: 0,
    consumed: 0,
    holes: [],
    writeFd: undefined,
    readFd: undefined,
  };
}

/**
 * Creates `directory` if missing. A new directory is only durable once its parent is synced
 * (issue 18, defect 7): without that, a power loss could take a fresh spool's first segment with
 * it under `fsync: 'always'`. So the parent of every level created is synced, deepest first.
 */
export function makeDirectory(fs: SpoolFileSystem, directory: string, durable: boolean): void {
  const first = fs.mkdirSync(directory, { recursive: true });
  if (first === undefined || !durable) return;
  const top = path.resolve(first);
  for (let level = path.resolve(directory); ; level = path.dirname(level)) {
    syncDirectory(fs, path.dirname(level));
    if (level === top || level === path.dirname(level)) return;
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

/**
 * Creates the file of segment `id`, never reusing an old one ('wx'), and makes its name durable
 * unless `durable` is false. Nothing is left behind when that fails (ENOSPC, no inode, EIO).
 */
export function createSegment(fs: SpoolFileSystem, directory: string, id: number, durable: boolean): Segment {
  const segment = newSegment(directory, id);
  segment.writeFd = fs.openSync(segment.path, 'wx');
  try {
    if (durable) syncDirectory(fs, directory);
  } catch (error) {
    closeSegment(fs, segment);
    fs.unlinkSync(segment.path);
    throw error;
  }
  return segment;
}

/**
 * Writes `record` right after the segment's records, at an explicit position: a write cut short
 * (ENOSPC) is cut off the file again, and the next record goes where it started, never after a
 * gap (issue 18, defect 1: with the file's own offset, the next record landed past a run of zeros
 * that read as corruption). When even the cut fails, the bytes written are the segment's `stray`:
 * the caller must seal it.
 */
export function writeRecord(fs: SpoolFileSystem, segment: Segment, record: Buffer): void {
  const fd = segment.writeFd!;
  let written = 0;
  try {
    while (written < record.length) {
      written += fs.writeSync(fd, record, written, record.length - written, segment.bytes + written);
    }
  } catch (error) {
    if (!cutBack(fs, segment)) segment.stray = written;
    throw error;
  }
}

/** Truncates the file to the segment's records; false when that fails too (the bytes stay). */
export function cutBack(fs: SpoolFileSystem, segment: Segment): boolean {
  try {
    fs.ftruncateSync(segment.writeFd!, segment.bytes);
    return true;
  } catch {
    return false;
  }
}

/** Up to `length` bytes of the segment from `position` (fewer only if the file is shorter). */
export function readSegment(fs: SpoolFileSystem, segment: Segment, position: number, length: number): Buffer {
  segment.readFd ??= fs.openSync(segment.path, 'r');
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const count = fs.readSync(segment.readFd, buffer, filled, length - filled, position + filled);
    if (count === 0) break;
    filled += count;
  }
  return buffer.subarray(0, filled);
}

/** Closes the segment's files (`write`: only the append one); a failed close is ignored: the fd is gone. */
export function closeSegment(fs: SpoolFileSystem, segment: Segment, which: 'write' | 'all' = 'all'): void {
  const fds = which === 'write' ? [segment.writeFd] : [segment.writeFd, segment.readFd];
  segment.writeFd = undefined;
  if (which === 'all') segment.readFd = undefined;
  for (const fd of fds) {
    if (fd === undefined) continue;
    try {
      fs.closeSync(fd);
    } catch {
      // close(2) releases the descriptor even when it reports an error.
    }
  }
}
