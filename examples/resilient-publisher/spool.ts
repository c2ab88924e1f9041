// The durable on-disk spool: a FIFO of event payloads in append-only segment files, bounded in
// bytes, with a chosen fsync policy and overflow policy (spool-options.ts). Appends go to the tail
// segment; replay reads from the head (segment-queue.ts) and consumes in order; a segment is deleted
// once every record in it is consumed. Consumption is kept in memory only, so after a crash the
// head segment is replayed from its start: at-least-once, and duplicates are what the idempotency
// key is for. Disk faults never leave half a record behind or stop the spool for good (issue 18).
import { encodeRecord, RECORD_HEADER_BYTES } from './record-codec.js';
import {
  closeSegment,
  createSegment,
  cutBack,
  makeDirectory,
  type Segment,
  writeRecord,
} from './segment-files.js';
import { SegmentQueue, type SpoolBatch, type SpoolPosition } from './segment-queue.js';
import { SpoolFullError, SpoolSyncError } from './spool-errors.js';
import { lockDirectory } from './spool-lock.js';
import {
  type ResolvedSpoolOptions,
  resolveSpoolOptions,
  type SpoolFileSystem,
  type SpoolOptions,
} from './spool-options.js';
import { recoverSegments, type SpoolRecovery } from './spool-recovery.js';

export type { SpoolBatch, SpoolPosition } from './segment-queue.js';

/** A fault the spool survived and reports rather than throws: nobody is waiting to be told. */
export interface SpoolFault {
  /**
   * `sync-failed`: a background fsync (`interval`, or sealing a segment) failed: the last `records`
   * appended may not survive a power loss; the segment takes no more records.
   * `unlink-failed`: a replayed segment could not be deleted; it still counts against `maxBytes`
   * and deletion is retried.
   */
  readonly kind: 'sync-failed' | 'unlink-failed';
  readonly file: string;
  readonly error: unknown;
  readonly records?: number;
}

export class Spool {
  /** Opens (or creates) the spool in `options.directory`: locks it, then repairs it. */
  static open(options: SpoolOptions): Spool {
    const resolved = resolveSpoolOptions(options);
    makeDirectory(resolved.fileSystem, resolved.directory, resolved.fsync !== 'never');
    const unlock = lockDirectory(resolved.fileSystem, resolved.directory);
    try {
      const { segments, recovery } = recoverSegments(resolved);
      return new Spool(resolved, segments, recovery, unlock);
    } catch (error) {
      unlock();
      throw error;
    }
  }

  readonly options: ResolvedSpoolOptions;
  /** What opening found and cut. */
  readonly recovery: SpoolRecovery;
  /** Told of every fault the spool reports instead of throwing (the publisher logs them). */
  onFault: ((fault: SpoolFault) => void) | undefined;
  private readonly queue: SegmentQueue;
  private readonly fs: SpoolFileSystem;
  private tail: Segment | undefined;
  private nextId: number;
  /** Records appended to the tail since its last fsync. */
  private unsynced = 0;
  private fsyncTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly unlock: () => void;

  private constructor(
    options: ResolvedSpoolOptions,
    segments: Segment[],
    recovery: SpoolRecovery,
    unlock: () => void,
  ) {
    this.options = options;
    this.fs = options.fileSystem;
    this.queue = new SegmentQueue(this.fs, segments, {
      removed: (segment) => {
        if (segment === this.tail) this.sealTail();
      },
      unlinkFailed: (file, error) => this.report({ kind: 'unlink-failed', file, error }),
    });
    this.recovery = recovery;
    this.nextId = recovery.nextId;
    this.unlock = unlock;
  }

  /** Records appended and not yet consumed, dropped or lost to damage. */
  get records(): number {
    return this.queue.liveRecords;
  }

  /** Bytes of all segment files (consumed records count until their file is deleted). */
  get bytes(): number {
    return this.queue.diskBytes;
  }

  get isEmpty(): boolean {
    return this.queue.liveRecords === 0;
  }

  /** Segment files in the queue now. */
  get segmentCount(): number {
    return this.queue.segments.length;
  }

  /** Records lost to the `drop-oldest` policy since open. */
  get droppedRecords(): number {
    return this.queue.droppedRecords;
  }

  /** See SegmentQueue.peek. */
  peek(maxRecords: number, maxBytes: number): SpoolBatch {
    return this.queue.peek(maxRecords, maxBytes);
  }

  /** See SegmentQueue.consume: returns how many records the batch delivered. */
  consume(position: SpoolPosition): number {
    return this.queue.consume(position);
  }

  /**
   * Appends one record and applies the fsync policy before returning. Returns how many old records
   * the `drop-oldest` policy deleted to make room (0 otherwise). On any throw nothing was spooled,
   * except for a SpoolSyncError with `kept: true`.
   * @throws SpoolFullError when the record does not fit (always under `reject`).
   * @throws SpoolSyncError under `always` when the fsync failed.
   * @throws RangeError when the record alone exceeds `segmentBytes`; the errno error of a failed write.
   */
  append(payload: Uint8Array): number {
    if (this.closed) throw new Error('spool is closed');
    const recordBytes = RECORD_HEADER_BYTES + payload.length;
    if (recordBytes > this.options.segmentBytes) {
      throw new RangeError(
        `a record of ${recordBytes} bytes exceeds segmentBytes ${this.options.segmentBytes}`,
      );
    }
    const droppedBefore = this.droppedRecords;
    this.makeRoom(recordBytes);
    const tail = this.writableTail(recordBytes);
    const record = encodeRecord(payload);
    try {
      writeRecord(this.fs, tail, record);
    } catch (error) {
      if (tail.stray > 0) {
        // The bytes written could not be cut: counted against maxBytes, and the segment sealed,
        // synced first (review of issue 18: sealing it dropped the fsync its earlier records were
        // due under `interval`, and the stray bytes went uncounted).
        this.queue.diskBytes += tail.stray;
        this.syncQuietly();
        this.sealTail();
      }
      throw error;
    }
    if (this.options.fsync === 'always') this.syncAppended(tail, record.length);
    this.commit(tail, record.length);
    if (this.options.fsync === 'interval' && this.fsyncTimer === undefined) {
      this.fsyncTimer = setTimeout(() => {
        this.fsyncTimer = undefined;
        this.syncQuietly();
      }, this.options.fsyncIntervalMs);
      this.fsyncTimer.unref();
    }
    return this.droppedRecords - droppedBefore;
  }

  /** Syncs per the policy, closes every file and releases the directory. Appending afterwards throws. */
  close(): void {
    if (this.closed) return;
    if (this.fsyncTimer !== undefined) clearTimeout(this.fsyncTimer);
    this.fsyncTimer = undefined;
    this.syncQuietly();
    for (const segment of this.queue.segments) closeSegment(this.fs, segment);
    this.closed = true;
    this.unlock();
  }

  private report(fault: SpoolFault): void {
    try {
      this.onFault?.(fault);
    } catch {
      // A failing listener must not fail the spool.
    }
  }

  /**
   * Under `always`, the fsync of a just-written record (issue 18, defect 4: it used to throw after
   * the record was counted, so a rejected publish was replayed anyway). The record is cut off
   * again and the segment sealed: after a failed fsync Linux may drop the dirty pages and report
   * the next fsync of the file as a success.
   */
  private syncAppended(tail: Segment, recordBytes: number): void {
    try {
      this.fs.fsyncSync(tail.writeFd!);
    } catch (error) {
      const removed = cutBack(this.fs, tail);
      if (!removed) this.commit(tail, recordBytes);
      this.sealTail();
      throw new SpoolSyncError(!removed, { cause: error });
    }
  }

  private commit(tail: Segment, recordBytes: number): void {
    tail.bytes += recordBytes;
    tail.records++;
    this.queue.diskBytes += recordBytes;
    this.queue.liveRecords++;
    if (this.options.fsync !== 'always') this.unsynced++;
  }

  /**
   * Forces the tail's appended bytes to disk unless the policy is `never`. A failure is reported,
   * not thrown (issue 18, defect 5: from the `interval` timer it crashed the host process), and the
   * tail is sealed so that later records go to a fresh file whose fsync means something.
   */
  private syncQuietly(): void {
    const tail = this.tail;
    if (this.unsynced === 0 || this.options.fsync === 'never' || tail?.writeFd === undefined) return;
    try {
      this.fs.fsyncSync(tail.writeFd);
      this.unsynced = 0;
    } catch (error) {
      const records = this.unsynced;
      this.sealTail();
      this.report({ kind: 'sync-failed', file: tail.path, error, records });
    }
  }

  /** The tail takes no more records; the next append starts a new segment. */
  private sealTail(): void {
    if (this.tail !== undefined) closeSegment(this.fs, this.tail, 'write');
    this.tail = undefined;
    this.unsynced = 0;
  }

  /**
   * Under `drop-oldest`, deletes whole oldest segments (never the tail) until `recordBytes` fit. It
   * stops when a drop freed nothing (review of issue 18: with unlink failing, it dropped every
   * segment up to the tail and still refused the event).
   */
  private makeRoom(recordBytes: number): void {
    const queue = this.queue;
    queue.retryDeletes();
    const fits = () => queue.diskBytes + recordBytes <= this.options.maxBytes;
    if (fits()) return;
    const { overflow, maxBytes } = this.options;
    if (overflow === 'drop-oldest') {
      while (!fits() && queue.segments[0] !== undefined && queue.segments[0] !== this.tail) {
        const before = queue.diskBytes;
        queue.dropHead();
        if (queue.diskBytes >= before) break; // its file could not be deleted: dropping more frees nothing
      }
    }
    // maxBytes >= 2 * segmentBytes, so the tail plus one record fits once it is alone, unless files
    // that could not be deleted still hold the room.
    if (!fits()) throw new SpoolFullError(queue.diskBytes, recordBytes, maxBytes, overflow);
  }

  /**
   * The tail segment if the record fits in it, else a new one. The new file is created before the
   * old tail is sealed (issue 18, defect 2: when creating it failed, the spool kept a closed tail
   * and every later rotation threw a TypeError): a failure leaves the spool as it was.
   */
  private writableTail(recordBytes: number): Segment {
    const tail = this.tail;
    if (tail !== undefined && tail.bytes + recordBytes <= this.options.segmentBytes) return tail;
    const { directory, fsync } = this.options;
    const segment = createSegment(this.fs, directory, this.nextId++, fsync !== 'never');
    this.syncQuietly();
    this.sealTail();
    this.queue.segments.push(segment);
    this.tail = segment;
    return segment;
  }
}
