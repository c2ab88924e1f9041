// The spool's segments, oldest first, and everything done from the head end: reading batches
// (skipping damaged stretches), consuming them, dropping whole segments for `drop-oldest`, and
// deleting files, with the counts the size bound and the publisher's stats rely on.
import { RECORD_HEADER_BYTES, scanRecords } from './record-codec.js';
import { scanStretch } from './record-scan.js';
import { closeSegment, readSegment, type Segment } from './segment-files.js';
import type { SpoolFileSystem } from './spool-options.js';

/** Where a peeked batch sits in the spool; hand it back to `consume`. */
export interface SpoolPosition {
  readonly segmentId: number;
  readonly start: number;
  readonly end: number;
  readonly records: number;
}

export interface SpoolBatch {
  /** Record payloads, oldest first; empty when the spool is. */
  readonly payloads: Buffer[];
  readonly position: SpoolPosition;
  /** Records found damaged while reading (a bad sector, a flipped bit) and skipped for good. */
  readonly skippedCorrupt: number;
  /** Records of the previous batch that `drop-oldest` deleted while it was in flight and that
   * were not consumed (the batch failed): lost, and counted in `droppedRecords` now. */
  readonly droppedInFlight: number;
}

export interface QueueEvents {
  /** A segment left the queue (its file is closed). */
  removed(segment: Segment): void;
  /** A file could not be deleted; deletion is retried and its bytes stay counted meanwhile. */
  unlinkFailed(file: string, error: unknown): void;
}

const emptyPosition: SpoolPosition = Object.freeze({ segmentId: 0, start: 0, end: 0, records: 0 });

export class SegmentQueue {
  /** Bytes of all segment files, including consumed records and files not yet deleted. */
  diskBytes = 0;
  /** Records appended and not yet consumed, dropped or lost to damage. */
  liveRecords: number;
  /** Records lost to the `drop-oldest` policy since open. */
  droppedRecords = 0;
  /** The batch handed out by `peek` and not yet consumed. */
  private peeked: SpoolPosition | undefined;
  /** A peeked batch whose segment was dropped (issue 18, defect 8): delivered if it is consumed. */
  private detached: SpoolPosition | undefined;
  /** Segments gone from the queue whose files could not be deleted yet. */
  private readonly undeleted: Segment[] = [];

  constructor(
    private readonly fs: SpoolFileSystem,
    readonly segments: Segment[],
    private readonly events: QueueEvents,
  ) {
    for (const segment of segments) this.diskBytes += segment.bytes;
    this.liveRecords = segments.reduce((sum, segment) => sum + segment.records, 0);
  }

  /**
   * Up to `maxRecords` of the oldest unconsumed records (from one segment, at most about
   * `maxBytes` of them, but always at least one when the spool is not empty). Reading does not
   * consume: pass `position` to `consume` once they are delivered.
   */
  peek(maxRecords: number, maxBytes: number): SpoolBatch {
    const droppedInFlight = this.detached?.records ?? 0;
    this.droppedRecords += droppedInFlight;
    this.detached = undefined;
    let skippedCorrupt = 0;
    for (;;) {
      const head = this.segments[0];
      if (head !== undefined) skipHoles(head);
      if (head === undefined || (head.readOffset === head.bytes && head.writeFd !== undefined)) {
        return { payloads: [], position: emptyPosition, skippedCorrupt, droppedInFlight };
      }
      if (head.readOffset === head.bytes) {
        this.removeHead(); // sealed, and nothing in it is left to read
        continue;
      }
      const remaining = (head.holes[0]?.offset ?? head.bytes) - head.readOffset;
      let chunk = readSegment(this.fs, head, head.readOffset, Math.min(remaining, maxBytes));
      let scan = scanRecords(chunk, head.readOffset, head.bytes, maxRecords);
      if (scan.records.length === 0 && scan.stop === 'torn' && chunk.length >= 4) {
        // The first record alone is longer than maxBytes: read exactly it.
        const whole = RECORD_HEADER_BYTES + chunk.readUInt32LE(0);
        chunk = readSegment(this.fs, head, head.readOffset, Math.min(remaining, whole));
        scan = scanRecords(chunk, head.readOffset, head.bytes, 1);
      }
      if (scan.records.length > 0) {
        const last = scan.records[scan.records.length - 1]!;
        const records = scan.records.length;
        this.peeked = { segmentId: head.id, start: head.readOffset, end: last.end, records };
        const payloads = scan.records.map((record) => record.payload);
        return { payloads, position: this.peeked, skippedCorrupt, droppedInFlight };
      }
      const stuckAt = head.readOffset;
      skippedCorrupt += this.rescan(head);
      skipHoles(head);
      if (head.readOffset === stuckAt) throw new Error(`spool segment ${head.path} changed while read`);
    }
  }

  /**
   * Marks a peeked batch delivered; deletes its segment when nothing unconsumed is left in it.
   * Returns how many records that delivered: 0 for a batch consumed already, the batch's records
   * for one whose segment was dropped while it was in flight (it was not lost after all).
   */
  consume(position: SpoolPosition): number {
    if (this.detached !== undefined && samePlace(this.detached, position)) {
      this.detached = undefined;
      return position.records;
    }
    const head = this.segments[0];
    if (head === undefined || head.id !== position.segmentId || head.readOffset !== position.start) return 0;
    this.peeked = undefined;
    head.readOffset = position.end;
    head.consumed += position.records;
    this.liveRecords -= position.records;
    skipHoles(head);
    if (head.readOffset === head.bytes) this.removeHead();
    return position.records;
  }

  /** Drops the head segment for room; a batch of it in flight is neither dropped nor consumed yet. */
  dropHead(): void {
    const head = this.segments[0]!;
    const unconsumed = head.records - head.consumed;
    this.liveRecords -= unconsumed;
    const inFlight = this.peeked?.segmentId === head.id ? this.peeked : undefined;
    if (inFlight !== undefined) this.detached = inFlight;
    this.droppedRecords += unconsumed - (inFlight?.records ?? 0);
    this.removeHead();
  }

  /** Deletes files whose deletion failed before. */
  retryDeletes(): void {
    for (const segment of this.undeleted.splice(0)) this.delete(segment, false);
  }

  private removeHead(): void {
    const head = this.segments.shift()!;
    closeSegment(this.fs, head);
    if (this.peeked?.segmentId === head.id) this.peeked = undefined;
    this.events.removed(head);
    this.retryDeletes();
    this.delete(head, true);
  }

  /** A failed unlink no longer loses the file's bytes from the count for good (issue 18). */
  private delete(segment: Segment, report: boolean): void {
    try {
      this.fs.unlinkSync(segment.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.undeleted.push(segment);
        if (report) this.events.unlinkFailed(segment.path, error);
        return;
      }
    }
    this.diskBytes -= segment.bytes + segment.stray;
  }

  /**
   * Damage at the head's read offset, found while running (issue 18, defect 3): scans the rest of
   * the segment, resynchronising after each damaged stretch, and makes every stretch a hole to
   * skip. The records lost are counted exactly: those the segment held, less the good ones left.
   */
  private rescan(head: Segment): number {
    const rest = readSegment(this.fs, head, head.readOffset, head.bytes - head.readOffset);
    const scan = scanStretch(rest, head.readOffset, head.bytes);
    head.holes = [...scan.damaged];
    if (scan.validEnd < head.bytes) head.holes.push({ offset: scan.validEnd, end: head.bytes });
    const lost = Math.max(0, head.records - head.consumed - scan.records.length);
    head.records -= lost;
    this.liveRecords -= lost;
    return lost;
  }
}

function skipHoles(segment: Segment): void {
  while (segment.holes[0] !== undefined && segment.holes[0].offset <= segment.readOffset) {
    segment.readOffset = Math.max(segment.readOffset, segment.holes.shift()!.end);
  }
}

function samePlace(a: SpoolPosition, b: SpoolPosition): boolean {
  return a.segmentId === b.segmentId && a.start === b.start;
}
