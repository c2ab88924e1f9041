// Streaming RESP2/RESP3 decoder (PROTOCOL.md §1): bytes in any split, values out through callbacks.
//
// Design: a byte-level loop over the current chunk with an explicit aggregate stack (nesting never
// recurses). A line token cut by a chunk boundary is held back and completed when a later chunk
// brings a line feed; payloads are read by PayloadReader (no copy when a chunk holds them, linear
// time however they are cut). Malformed input poisons the decoder: `write` throws the same
// RespireProtocolError until `reset()`; it never resynchronises silently (PROTOCOL.md §1.2 rule 4).
import { RespireProtocolError, RespireServerError } from '../errors.js';
import {
  ARRAY,
  ATTRIBUTE,
  BIG_NUMBER,
  BLOB_ERROR,
  BOOLEAN,
  BULK_STRING,
  DOUBLE,
  INTEGER,
  MAP,
  NULL,
  PUSH,
  SET,
  SIMPLE_ERROR,
  SIMPLE_STRING,
  STREAM_CHUNK,
  STREAM_END,
  VERBATIM,
} from './frame-types.js';
import { INCOMPLETE, INLINE_DIGITS, LineReader, NULL_LENGTH, STREAMED } from './line-reader.js';
import { PayloadReader } from './payload-reader.js';
import { readBigNumber, readDouble, utf8Text } from './scalars.js';
import type { RespDecoderOptions, RespValue } from './types.js';
import { UNTIL_END, ValueAssembler } from './value-assembler.js';

const CR = 0x0d;
const LF = 0x0a;
const MINUS = 0x2d;
const COLON = 0x3a;

const DEFAULT_MAX_NESTING_DEPTH = 1_000_000;
const DEFAULT_MAX_BULK_LENGTH = 512 * 1024 * 1024;
const DEFAULT_MAX_AGGREGATE_LENGTH = 2 ** 32 - 1;

/**
 * Decodes a stream of RESP2/RESP3 frames. Feed it every byte the server sends, in order, with
 * `write`; complete replies go to `onReply`, push frames to `onPush`, attributes to `onAttribute`.
 *
 * The decoder keeps views of the chunks holding an unfinished token or payload until it
 * completes, and with `returnBuffers` a string whose payload arrived inside one chunk is a
 * zero-copy slice of that chunk. So never write into a chunk after passing it to `write` (Node
 * socket chunks are never reused), unless `releaseInput()` has returned true since.
 *
 * A callback that throws makes `write` throw that error; the bytes after the delivered value are
 * kept and decoded by the next `write` (an empty chunk is enough to resume).
 */
export class RespDecoder {
  private readonly returnBuffers: boolean;
  private readonly maxDepth: number;
  private readonly maxBulk: number;
  private readonly maxAggregate: number;

  /** Bytes ever passed to `write`; held bytes end here. */
  private received = 0;
  private failure: RespireProtocolError | null = null;

  /** Bytes not yet decoded: an unfinished line token, or what a throwing callback did not reach. */
  private held: Buffer[] = [];
  private heldLength = 0;
  /** Whether `held` is one unfinished line, which cannot complete before a line feed arrives. */
  private heldIsLine = false;

  private readonly payloads: PayloadReader;

  private readonly values: ValueAssembler;
  private readonly handlers: RespDecoderOptions;

  /** Stream offset of the current buffer's first byte. */
  private base = 0;
  /** Index in the current buffer just past the last delivered value. */
  private cursor = 0;
  private readonly lines: LineReader;

  constructor(options: RespDecoderOptions) {
    this.handlers = options;
    this.values = new ValueAssembler(options, options.returnBuffers === true);
    this.returnBuffers = options.returnBuffers === true;
    this.maxDepth = options.maxNestingDepth ?? DEFAULT_MAX_NESTING_DEPTH;
    this.maxBulk = options.maxBulkLength ?? DEFAULT_MAX_BULK_LENGTH;
    this.maxAggregate = options.maxAggregateLength ?? DEFAULT_MAX_AGGREGATE_LENGTH;
    this.lines = new LineReader(this.maxBulk, (message, index) => this.fail(message, index));
    this.payloads = new PayloadReader((message, offset) => this.fail(message, offset - this.base));
  }

  /** Decodes the next bytes of the stream. Throws RespireProtocolError on malformed input. */
  write(chunk: Uint8Array): void {
    if (this.failure !== null) throw this.failure;
    let buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.received += buf.length;
    if (this.heldLength !== 0) {
      if (this.heldIsLine && buf.indexOf(LF) === -1) {
        this.hold(buf);
        return;
      }
      this.held.push(buf);
      buf = Buffer.concat(this.held, this.heldLength + buf.length);
      this.held = [];
      this.heldLength = 0;
    }
    this.base = this.received - buf.length;
    try {
      this.parse(buf);
    } catch (error) {
      if (error !== this.failure) {
        // A callback threw: keep every byte after the value it was given.
        this.heldIsLine = false;
        this.hold(buf.subarray(this.cursor));
      }
      throw error;
    }
  }

  /**
   * Copies every byte it still refers to in chunks given to `write` (an unfinished token or
   * payload) into memory of its own, so the caller may write into those chunks again. Returns
   * false, copying nothing, when it cannot promise that: with `returnBuffers` (replies are views
   * of the chunks), inside a streamed string (its chunks are views too), or after a failure.
   */
  releaseInput(): boolean {
    if (this.returnBuffers || this.failure !== null || this.values.inStreamedString) return false;
    if (this.heldLength !== 0) this.held = [Buffer.concat(this.held, this.heldLength)];
    this.payloads.release();
    return true;
  }

  /** Forgets all state, including a failure, for use on a new connection. */
  reset(): void {
    this.received = 0;
    this.failure = null;
    this.held = [];
    this.heldLength = 0;
    this.heldIsLine = false;
    this.payloads.reset();
    this.values.reset();
  }

  private parse(buf: Buffer): void {
    const end = buf.length;
    const values = this.values;
    const handlers = this.handlers;
    let pos = 0;
    if (this.payloads.type !== 0) {
      // A payload cut by the previous chunk's end.
      pos = this.readPayload(buf, pos);
      if (pos === -1) return;
    }
    while (pos < end) {
      // Fast paths, inline and call-free, for the commonest complete tokens: a bulk string wholly
      // in this chunk, a short integer, `+OK`, a null. Anything else, or anything unusual about
      // these, takes the general path, which checks everything.
      let value: RespValue = null;
      let next = -1;
      if (!values.inStreamedString) {
        const type = buf[pos];
        if (type === BULK_STRING) {
          let p = pos + 1;
          let c = buf[p];
          let length = 0;
          while (c !== undefined && c >= 0x30 && c <= 0x39 && p - pos < 11) {
            length = length * 10 + (c - 0x30);
            c = buf[++p];
          }
          const start = p + 2;
          const stop = start + length;
          if (
            c === CR &&
            p > pos + 1 &&
            buf[p + 1] === LF &&
            length <= this.maxBulk &&
            p - pos - 1 <= this.maxBulk
          ) {
            if (stop + 2 <= end && buf[stop] === CR && buf[stop + 1] === LF) {
              value = this.returnBuffers ? buf.subarray(start, stop) : utf8Text(buf, start, stop);
              next = stop + 2;
            }
          }
        } else if (type === INTEGER) {
          let p = pos + 1;
          let c = buf[p];
          const negative = c === MINUS;
          if (negative) c = buf[++p];
          let integer = 0;
          const digits = p;
          while (c !== undefined && c >= 0x30 && c <= 0x39 && p - digits < INLINE_DIGITS) {
            integer = integer * 10 + (c - 0x30);
            c = buf[++p];
          }
          if (c === CR && p > digits && buf[p + 1] === LF && p - pos - 1 <= this.maxBulk) {
            value = negative && integer !== 0 ? -integer : integer;
            next = p + 2;
          }
        } else if (type === SIMPLE_STRING) {
          if (buf[pos + 1] === 0x4f && buf[pos + 2] === 0x4b && buf[pos + 3] === CR && buf[pos + 4] === LF) {
            value = this.returnBuffers ? buf.subarray(pos + 1, pos + 3) : 'OK';
            next = pos + 5;
          }
        } else if (type === NULL) {
          if (buf[pos + 1] === CR && buf[pos + 2] === LF) next = pos + 3;
        }
      }
      if (next === -1) {
        pos = this.parseToken(buf, pos);
        if (pos === -1) return;
        continue;
      }
      pos = next;
      this.cursor = pos;
      if (values.depth === 0) handlers.onReply(value);
      else values.add(value);
    }
  }

  /** The general path: one token of any type at `pos`. Returns the index after it, or -1 to stop. */
  private parseToken(buf: Buffer, pos: number): number {
    const values = this.values;
    const type = buf[pos]!;
    if (values.inStreamedString && type !== STREAM_CHUNK) {
      this.fail('expected a `;` chunk inside a streamed string', pos);
    }
    let value: RespValue;
    switch (type) {
      case BULK_STRING:
      case VERBATIM:
      case BLOB_ERROR:
      case STREAM_CHUNK: {
        const length = this.lines.readLength(buf, pos);
        if (length === INCOMPLETE) {
          this.holdLine(buf, pos);
          return -1;
        }
        const header = pos;
        pos = this.lines.next;
        if (length === NULL_LENGTH && type === BULK_STRING) {
          value = null;
          break;
        }
        if (length === STREAMED && type === BULK_STRING && !values.inStreamedString) {
          values.openStreamedString();
          return pos;
        }
        if (length < 0) this.fail('invalid length', header + 1);
        if (type === STREAM_CHUNK) {
          if (!values.inStreamedString) this.fail('`;` chunk outside a streamed string', header);
          if (length === 0) {
            value = values.closeStreamedString();
            break;
          }
        }
        if (length > this.maxBulk) this.fail(`payload of ${length} bytes exceeds maxBulkLength`, header);
        // A well-formed bulk string wholly in this chunk took the fast path in `parse` (unless its
        // length has over 10 digits), so every payload here goes through PayloadReader. Payloads
        // that become strings are copied out at once, so a scratch buffer can collect them.
        const transient = type === BLOB_ERROR || (!this.returnBuffers && type !== STREAM_CHUNK);
        this.payloads.begin(type, length, this.base + pos, transient);
        return this.readPayload(buf, pos);
      }
      case INTEGER: {
        const integer = this.lines.readInteger(buf, pos);
        if (integer === undefined) {
          this.holdLine(buf, pos);
          return -1;
        }
        value = integer;
        pos = this.lines.next;
        break;
      }
      case SIMPLE_STRING:
      case SIMPLE_ERROR:
      case DOUBLE:
      case BIG_NUMBER: {
        const stop = this.lines.lineEnd(buf, pos + 1);
        if (stop === -1) {
          this.holdLine(buf, pos);
          return -1;
        }
        value = this.readLineValue(type, buf, pos + 1, stop);
        pos = this.lines.next;
        break;
      }
      case NULL:
      case BOOLEAN:
      case STREAM_END: {
        const stop = this.lines.lineEnd(buf, pos + 1);
        if (stop === -1) {
          this.holdLine(buf, pos);
          return -1;
        }
        const header = pos;
        pos = this.lines.next;
        if (type === STREAM_END) {
          if (stop !== header + 1) this.fail('unexpected bytes after `.`', header + 1);
          this.cursor = pos;
          const aggregate = this.closeStreamedAggregate(header);
          if (aggregate === undefined) return pos;
          value = aggregate;
          break;
        }
        value = this.readFixedValue(type, buf, header + 1, stop);
        break;
      }
      case ARRAY:
      case SET:
      case MAP:
      case PUSH:
      case ATTRIBUTE: {
        const count = this.lines.readLength(buf, pos);
        if (count === INCOMPLETE) {
          this.holdLine(buf, pos);
          return -1;
        }
        const header = pos;
        pos = this.lines.next;
        if (count === NULL_LENGTH && type === ARRAY) {
          value = null;
          break;
        }
        this.cursor = pos;
        const empty = this.openAggregate(type, count, header);
        if (empty === undefined) return pos;
        value = empty;
        break;
      }
      default:
        this.fail(`unknown type byte 0x${type.toString(16).padStart(2, '0')}`, pos);
    }
    this.cursor = pos;
    values.add(value);
    return pos;
  }

  /** Continues the payload under way; returns the index after it, or -1 when `buf` ended first. */
  private readPayload(buf: Buffer, pos: number): number {
    const payloads = this.payloads;
    const next = payloads.read(buf, pos);
    if (next !== -1)
      this.finishPayload(payloads.source, payloads.start, payloads.start + payloads.length, next);
    return next;
  }

  private finishPayload(src: Buffer, start: number, stop: number, resume: number): void {
    const type = this.payloads.type;
    this.payloads.finish();
    let value: RespValue;
    if (type === BULK_STRING) {
      value = this.returnBuffers ? src.subarray(start, stop) : utf8Text(src, start, stop);
    } else if (type === STREAM_CHUNK) {
      this.values.addChunk(src.subarray(start, stop));
      return;
    } else if (type === BLOB_ERROR) {
      value = RespireServerError.fromReply(utf8Text(src, start, stop));
    } else {
      // Verbatim: `fmt:` then the text (PROTOCOL.md §1.1); the format is dropped.
      if (stop - start < 4 || src[start + 3] !== COLON) {
        // At the byte where `:` belongs, or the payload's end when it is shorter (`=0`): never past it.
        const at = this.payloads.offset + Math.min(3, stop - start) - this.base;
        this.fail('verbatim string without a `fmt:` prefix', at);
      }
      value = this.returnBuffers ? src.subarray(start + 4, stop) : utf8Text(src, start + 4, stop);
    }
    this.cursor = resume;
    this.values.add(value);
  }

  private readLineValue(type: number, buf: Buffer, start: number, stop: number): RespValue {
    if (type === SIMPLE_STRING)
      return this.returnBuffers ? buf.subarray(start, stop) : utf8Text(buf, start, stop);
    if (type === SIMPLE_ERROR) return RespireServerError.fromReply(utf8Text(buf, start, stop));
    const value = type === DOUBLE ? readDouble(buf, start, stop) : readBigNumber(buf, start, stop);
    if (value === undefined) this.fail(type === DOUBLE ? 'invalid double' : 'invalid big number', start);
    return value;
  }

  private readFixedValue(type: number, buf: Buffer, start: number, stop: number): RespValue {
    if (type === NULL) {
      if (stop !== start) this.fail('unexpected bytes after `_`', start);
      return null;
    }
    if (stop === start + 1) {
      if (buf[start] === 0x74 /* t */) return true;
      if (buf[start] === 0x66 /* f */) return false;
    }
    return this.fail('boolean is neither `t` nor `f`', start);
  }

  /**
   * Opens an aggregate of `count` elements (pairs for maps and attributes) whose header is at
   * `header`. Returns the value of an empty one (undefined for an empty push or attribute, which
   * are delivered here), or undefined when elements follow.
   */
  private openAggregate(type: number, count: number, header: number): RespValue | undefined {
    const values = this.values;
    if (type === PUSH && values.depth !== 0) this.fail('push frame nested inside an aggregate', header);
    if (values.depth >= this.maxDepth)
      this.fail(`nesting deeper than maxNestingDepth (${this.maxDepth})`, header);
    if (count === STREAMED) {
      if (type === PUSH || type === ATTRIBUTE) this.fail('streamed push or attribute', header + 1);
      values.open(type, UNTIL_END);
      return undefined;
    }
    if (count < 0) this.fail('negative length', header + 1);
    if (count > this.maxAggregate)
      this.fail(`aggregate of ${count} elements exceeds maxAggregateLength`, header);
    if (count !== 0) {
      values.open(type, type === MAP || type === ATTRIBUTE ? count * 2 : count);
      return undefined;
    }
    if (type === ARRAY) return [];
    if (type === SET) return new Set();
    if (type === MAP) return new Map();
    values.deliverFrame(type, []);
    return undefined;
  }

  /** A `.` ends the innermost streamed aggregate; returns its value. */
  private closeStreamedAggregate(header: number): RespValue | undefined {
    const problem = this.values.streamEndProblem();
    if (problem !== undefined) this.fail(problem, header);
    return this.values.close();
  }

  /** Keeps an unfinished line token that starts at `pos` for the next write. */
  private holdLine(buf: Buffer, pos: number): void {
    this.heldIsLine = true;
    this.hold(buf.subarray(pos));
  }

  private hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.held.push(bytes);
    this.heldLength += bytes.length;
    // The type byte and CRLF are not part of the line's content.
    if (this.heldIsLine && this.heldLength > this.maxBulk + 3) {
      this.fail('line longer than maxBulkLength', this.received - this.heldLength - this.base);
    }
  }

  /** Poisons the decoder with a protocol error at `index` of the current buffer, and throws it. */
  private fail(message: string, index: number): never {
    const offset = this.base + index;
    this.failure = new RespireProtocolError(`malformed RESP: ${message} at byte ${offset}`, { offset });
    throw this.failure;
  }
}
