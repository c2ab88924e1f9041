// Reading a length-prefixed payload (bulk string, verbatim string, blob error, streamed-string
// chunk) and its CRLF, whatever the chunking: from one chunk with no copy; across chunks that
// continue the same memory (a reader filling one large buffer) still with no copy; otherwise
// copied once into a buffer of its final size, so a 64 MiB bulk in 64 KiB pieces is linear time.

const CR = 0x0d;
const LF = 0x0a;
/** Largest scratch buffer kept for string payloads; larger ones are allocated each time. */
const MAX_SCRATCH_BYTES = 4 * 1024 * 1024;
const NO_BYTES = Buffer.alloc(0);

/** Throws the decoder's protocol error at an absolute stream offset. */
export type FailAtOffset = (message: string, offset: number) => never;

export class PayloadReader {
  /** Type byte of the payload being read; 0 when none is. */
  type = 0;
  length = 0;
  /** Stream offset of the payload's first byte. */
  offset = 0;
  /** Once `read` completes, until `finish`: the payload is `source[start, start + length)`. */
  source: Buffer = NO_BYTES;
  start = 0;
  /** A payload cut by a chunk boundary, collected with its CRLF. */
  private collected: Buffer | null = null;
  private filled = 0;
  /** Or, until a chunk arrives that does not continue it, a view of the bytes so far. */
  private span: Buffer | null = null;
  /** Whether the payload is decoded to a string at once, so it can be collected in `scratch`. */
  private transient = false;
  /** Reused for transient payloads: no allocation (and later GC) per large string reply. */
  private scratch: Buffer = Buffer.alloc(0);

  constructor(private readonly fail: FailAtOffset) {}

  /** `transient`: the bytes are copied out (decoded to a string) before the next read. */
  begin(type: number, length: number, offset: number, transient: boolean): void {
    this.type = type;
    this.length = length;
    this.offset = offset;
    this.transient = transient;
  }

  /**
   * The completed payload has been used: none is under way, and its memory is let go (a payload
   * collected across chunks may be hundreds of MiB, and no later payload may come to replace it).
   */
  finish(): void {
    this.type = 0;
    this.source = NO_BYTES;
  }

  reset(): void {
    this.finish();
    this.collected = null;
    this.span = null;
  }

  /**
   * Reads from `buf` at `pos`. Returns the index after the payload's CRLF once it is complete
   * (`source`/`start` then locate it, and `type` still names it), or -1 when `buf` ended first.
   */
  read(buf: Buffer, pos: number): number {
    const length = this.length;
    const span = this.span;
    if (span !== null) {
      if (buf.buffer === span.buffer && buf.byteOffset === span.byteOffset + span.length && pos === 0) {
        const count = Math.min(length + 2 - span.length, buf.length);
        const extended = Buffer.from(span.buffer, span.byteOffset, span.length + count);
        if (extended.length < length + 2) {
          this.span = extended;
          return -1;
        }
        this.span = null;
        return this.complete(extended, 0, count);
      }
      this.release();
    }
    const collected = this.collected;
    if (collected === null) {
      if (buf.length - pos >= length + 2) return this.complete(buf, pos, pos + length + 2);
      this.span = buf.subarray(pos);
      return -1;
    }
    const count = Math.min(length + 2 - this.filled, buf.length - pos);
    buf.copy(collected, this.filled, pos, pos + count);
    this.filled += count;
    if (this.filled < length + 2) return -1;
    this.collected = null;
    return this.complete(collected, 0, pos + count);
  }

  /** Copies a payload still seen through the caller's chunk into memory of its own. */
  release(): void {
    const span = this.span;
    if (span === null) return;
    this.collected = this.allocate(this.length + 2);
    this.filled = span.copy(this.collected, 0);
    this.span = null;
  }

  private allocate(size: number): Buffer {
    if (!this.transient) return Buffer.allocUnsafe(size);
    if (size > MAX_SCRATCH_BYTES) return Buffer.allocUnsafe(size);
    if (this.scratch.length < size) {
      this.scratch = Buffer.allocUnsafeSlow(
        Math.min(MAX_SCRATCH_BYTES, Math.max(size, this.scratch.length * 2)),
      );
    }
    return this.scratch.subarray(0, size);
  }

  private complete(source: Buffer, start: number, next: number): number {
    const stop = start + this.length;
    if (source[stop] !== CR || source[stop + 1] !== LF) {
      this.fail('missing CRLF after a payload', this.offset + this.length);
    }
    this.source = source;
    this.start = start;
    return next;
  }
}
