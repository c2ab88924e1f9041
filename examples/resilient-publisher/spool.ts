// The durable on-disk spool: a FIFO of event payloads in append-only segment files, bounded in
// bytes, with a chosen fsync policy and overflow policy (spool-options.ts). Appends go to the tail
// segment; replay reads from the head and consumes in order; a segment is deleted once every
// record in it is consumed. Consumption is kept in memory only, so after a crash the head segment
// is replayed from its start: at-least-once, and duplicates are what the idempotency key is for.
import { encodeRecord, RECORD_HEADER_BYTES, scanRecords } from './record-codec.js';
import {
  newSegment,
  recoverSegments,
  type Segment,
  type SpoolRecovery,
  syncDirectory,
} from './segment-files.js';
import {
  type ResolvedSpoolOptions,
  resolveSpoolOptions,
  SpoolFullError,
  type SpoolOptions,
} from './spool-options.js';

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
  /** Records found corrupt while reading (the disk changed under us) and skipped for good. */
  readonly skippedCorrupt: number;
}

export class Spool {
  /** Opens (or creates) the spool in `options.directory`, repairing it first (segment-files.ts). */
  static open(options: SpoolOptions): Spool {
    const resolved = resolveSpoolOptions(options);
    const { segments, recovery } = recoverSegments(resolved);
    return new Spool(resolved, segments, recovery);
  }

  readonly options: ResolvedSpoolOptions;
  /** What opening found and cut. */
  readonly recovery: SpoolRecovery;
  private readonly segments: Segment[];
  private tail: Segment | undefined;
  private nextId: number;
  private diskBytes = 0;
  private liveRecords = 0;
  private dirty = false;
  private fsyncTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** Records lost to the `drop-oldest` policy since open. */
  droppedRecords = 0;

  private constructor(options: ResolvedSpoolOptions, segments: Segment[], recovery: SpoolRecovery) {
    this.options = options;
    this.segments = segments;
    this.recovery = recovery;
    this.nextId = recovery.nextId;
    for (const segment of segments) this.diskBytes += segment.bytes;
    this.liveRecords = recovery.records;
  }

  /** Records appended and not yet consumed or dropped. */
  get records(): number {
    return this.liveRecords;
  }

  /** Bytes of all segment files (consumed records count until their segment is deleted). */
  get bytes(): number {
    return this.diskBytes;
  }

  get isEmpty(): boolean {
    return this.liveRecords === 0;
  }

  /** Segment files on disk now. */
  get segmentCount(): number {
    return this.segments.length;
  }

  /**
   * Appends one record and applies the fsync policy before returning. Returns how many old records
   * the `drop-oldest` policy deleted to make room (0 otherwise).
   * @throws SpoolFullError under `reject` when the record does not fit; nothing is written.
   * @throws RangeError when the record alone exceeds `segmentBytes`.
   */
  append(payload: Uint8Array): number {
    if (this.closed) throw new Error('spool is closed');
    const recordBytes = RECORD_HEADER_BYTES + payload.length;
    if (recordBytes > this.options.segmentBytes) {
      throw new RangeError(
        `a record of ${recordBytes} bytes exceeds segmentBytes ${this.options.segmentBytes}`,
      );
    }
    const dropped = this.makeRoom(recordBytes);
    const tail = this.writableTail(recordBytes);
    const record = encodeRecord(payload);
    const fs = this.options.fileSystem;
    try {
      for (let written = 0; written < record.length; ) {
        written += fs.writeSync(tail.writeFd!, record, written, record.length - written);
      }
    } catch (error) {
      // A short write (ENOSPC) must not leave half a record for later records to follow.
      fs.ftruncateSync(tail.writeFd!, tail.bytes);
      throw error;
    }
    tail.bytes += record.length;
    tail.records++;
    this.diskBytes += record.length;
    this.liveRecords++;
    this.dirty = true;
    if (this.options.fsync === 'always') this.sync();
    else if (this.options.fsync === 'interval' && this.fsyncTimer === undefined) {
      this.fsyncTimer = setTimeout(() => {
        this.fsyncTimer = undefined;
        this.sync();
      }, this.options.fsyncIntervalMs);
      this.fsyncTimer.unref();
    }
    return dropped;
  }

  /**
   * Up to `maxRecords` of the oldest unconsumed records (from one segment, at most about
   * `maxBytes` of them, but always at least one when the spool is not empty). Reading does not
   * consume: pass `position` to `consume` once they are delivered.
   */
  peek(maxRecords: number, maxBytes: number): SpoolBatch {
    let skippedCorrupt = 0;
    for (;;) {
      const head = this.segments[0];
      if (head === undefined || head.readOffset === head.bytes) {
        return { payloads: [], position: emptyPosition, skippedCorrupt };
      }
      const remaining = head.bytes - head.readOffset;
      let chunk = this.read(head, head.readOffset, Math.min(remaining, maxBytes));
      let scan = scanRecords(chunk, head.readOffset, head.bytes, maxRecords);
      if (scan.records.length === 0 && scan.stop === 'torn' && chunk.length >= 4) {
        // The first record alone is longer than maxBytes: read exactly it.
        const whole = RECORD_HEADER_BYTES + chunk.readUInt32LE(0);
        chunk = this.read(head, head.readOffset, Math.min(remaining, whole));
        scan = scanRecords(chunk, head.readOffset, head.bytes, 1);
      }
      if (scan.records.length > 0) {
        const last = scan.records[scan.records.length - 1]!;
        const position = {
          segmentId: head.id,
          start: head.readOffset,
          end: last.end,
          records: scan.records.length,
        };
        return { payloads: scan.records.map((record) => record.payload), position, skippedCorrupt };
      }
      // Nothing good at the read offset although the file was verified: skip the rest of it.
      const lost = head.records - head.consumed;
      skippedCorrupt += lost;
      this.consume({ segmentId: head.id, start: head.readOffset, end: head.bytes, records: lost });
    }
  }

  /** Marks a peeked batch delivered; deletes its segment when nothing unconsumed is left in it. */
  consume(position: SpoolPosition): void {
    const head = this.segments[0];
    // A stale batch: its segment was dropped (drop-oldest) or it was consumed already.
    if (head === undefined || head.id !== position.segmentId || head.readOffset !== position.start) return;
    head.readOffset = position.end;
    head.consumed += position.records;
    this.liveRecords -= position.records;
    if (head.readOffset === head.bytes) this.removeHead();
  }

  /** Forces appended bytes to disk now (unless the policy is `never`). */
  sync(): void {
    if (!this.dirty || this.options.fsync === 'never' || this.tail?.writeFd === undefined) return;
    this.options.fileSystem.fsyncSync(this.tail.writeFd);
    this.dirty = false;
  }

  /** Syncs per the policy and closes every file. Appending afterwards throws. */
  close(): void {
    if (this.closed) return;
    if (this.fsyncTimer !== undefined) clearTimeout(this.fsyncTimer);
    this.fsyncTimer = undefined;
    this.sync();
    for (const segment of this.segments) this.closeFiles(segment);
    this.closed = true;
  }

  /** Under `drop-oldest`, deletes whole oldest segments (never the tail) until `recordBytes` fit. */
  private makeRoom(recordBytes: number): number {
    if (this.diskBytes + recordBytes <= this.options.maxBytes) return 0;
    if (this.options.overflow === 'reject') {
      throw new SpoolFullError(this.diskBytes, recordBytes, this.options.maxBytes);
    }
    let dropped = 0;
    while (this.diskBytes + recordBytes > this.options.maxBytes && this.segments[0] !== this.tail) {
      const head = this.segments[0]!;
      dropped += head.records - head.consumed;
      this.liveRecords -= head.records - head.consumed;
      this.removeHead();
    }
    // maxBytes >= 2 * segmentBytes, so the tail plus one record always fits once it is alone.
    this.droppedRecords += dropped;
    return dropped;
  }

  /** The tail segment if the record fits in it, else a new one (the old tail is synced and sealed). */
  private writableTail(recordBytes: number): Segment {
    const tail = this.tail;
    if (tail !== undefined && tail.bytes + recordBytes <= this.options.segmentBytes) return tail;
    const fs = this.options.fileSystem;
    if (tail !== undefined) {
      this.sync();
      fs.closeSync(tail.writeFd!);
      tail.writeFd = undefined;
    }
    this.dirty = false;
    const id = this.nextId++;
    const segment = newSegment(this.options.directory, id, undefined);
    // 'wx': a new file, never an old one reused.
    segment.writeFd = fs.openSync(segment.path, 'wx');
    if (this.options.fsync !== 'never') syncDirectory(fs, this.options.directory);
    this.segments.push(segment);
    this.tail = segment;
    return segment;
  }

  private read(segment: Segment, position: number, length: number): Buffer {
    const fs = this.options.fileSystem;
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

  private removeHead(): void {
    const head = this.segments.shift()!;
    this.closeFiles(head);
    if (head === this.tail) {
      this.tail = undefined;
      this.dirty = false;
    }
    this.options.fileSystem.unlinkSync(head.path);
    this.diskBytes -= head.bytes;
  }

  private closeFiles(segment: Segment): void {
    const fs = this.options.fileSystem;
    if (segment.writeFd !== undefined) fs.closeSync(segment.writeFd);
    if (segment.readFd !== undefined) fs.closeSync(segment.readFd);
    segment.writeFd = undefined;
    segment.readFd = undefined;
  }
}

const emptyPosition: SpoolPosition = Object.freeze({ segmentId: 0, start: 0, end: 0, records: 0 });
