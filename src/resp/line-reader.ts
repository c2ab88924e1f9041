// Reading the line tokens of RESP (PROTOCOL.md §1.2): lengths, integers and the CRLF that ends
// a line, strictly — bad digits, a CR without LF, empty or over-long lines are protocol errors.
import { readLongInteger } from './scalars.js';

const CR = 0x0d;
const LF = 0x0a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const QUESTION = 0x3f;

// What `readLength` returns besides a length.
export const NULL_LENGTH = -1;
export const INCOMPLETE = -2;
export const STREAMED = -3;

/** Integers of at most this many digits are exact in a double and parsed inline. */
export const INLINE_DIGITS = 15;

/** Throws the decoder's protocol error for a fault at `index` of the current buffer. */
export type FailAt = (message: string, index: number) => never;

export class LineReader {
  /** Index just past the line that the last successful read consumed. */
  next = 0;

  constructor(
    /** Longest line content accepted, in bytes. */
    private readonly maxLine: number,
    private readonly fail: FailAt,
  ) {}

  /**
   * Reads the length line of a `$ = ! ; * ~ % > |` frame at `pos`: a non-negative decimal, `-1`
   * (NULL_LENGTH) or `?` (STREAMED); INCOMPLETE when its CRLF has not arrived. Sets `next`.
   */
  readLength(buf: Buffer, pos: number): number {
    const end = buf.length;
    let p = pos + 1;
    if (p < end && buf[p] === QUESTION) {
      const stop = this.lineEnd(buf, p + 1);
      if (stop === -1) return INCOMPLETE;
      if (stop !== p + 1) this.fail('unexpected bytes after `?`', p + 1);
      return STREAMED;
    }
    const negative = p < end && buf[p] === MINUS;
    if (negative) p++;
    const digits = p;
    let length = 0;
    for (; p < end; p++) {
      const c = buf[p]!;
      if (c === CR) break;
      if (c < 0x30 || c > 0x39) this.fail('invalid length', p);
      length = length * 10 + (c - 0x30);
    }
    if (p + 1 >= end) return INCOMPLETE;
    if (buf[p + 1] !== LF) this.fail('CR not followed by LF', p + 1);
    if (p === digits) this.fail('empty length', p);
    if (p - pos - 1 > this.maxLine) this.fail('line longer than maxBulkLength', pos + 1);
    this.next = p + 2;
    if (!negative) return length;
    if (length !== 1 || p - digits !== 1) this.fail('negative length', pos + 1);
    return NULL_LENGTH;
  }

  /** Reads an integer line at `pos`; undefined when its CRLF has not arrived. Sets `next`. */
  readInteger(buf: Buffer, pos: number): number | bigint | undefined {
    const end = buf.length;
    let p = pos + 1;
    const negative = p < end && buf[p] === MINUS;
    if (negative || (p < end && buf[p] === PLUS)) p++;
    const digits = p;
    let value = 0;
    for (; p < end; p++) {
      const c = buf[p]!;
      if (c === CR) break;
      if (c < 0x30 || c > 0x39) this.fail('invalid integer', p);
      value = value * 10 + (c - 0x30);
    }
    if (p + 1 >= end) return undefined;
    if (buf[p + 1] !== LF) this.fail('CR not followed by LF', p + 1);
    if (p === digits) this.fail('empty integer', p);
    if (p - pos - 1 > this.maxLine) this.fail('line longer than maxBulkLength', pos + 1);
    this.next = p + 2;
    if (p - digits > INLINE_DIGITS) return readLongInteger(buf, pos + 1, p)!;
    return negative && value !== 0 ? -value : value;
  }

  /** Index of the CR ending the line whose text starts at `from`, or -1 if not all here. Sets `next`. */
  lineEnd(buf: Buffer, from: number): number {
    const end = buf.length;
    // Short lines (`+OK`) are the rule: scan them inline; hand long ones to the native search.
    const inlineStop = Math.min(from + 16, end);
    let p = from;
    while (p < inlineStop && buf[p] !== CR) p++;
    if (p === inlineStop && p < end) p = buf.indexOf(CR, p);
    if (p === -1 || p + 1 >= end) return -1;
    if (buf[p + 1] !== LF) this.fail('CR not followed by LF', p + 1);
    if (p - from > this.maxLine) this.fail('line longer than maxBulkLength', from);
    this.next = p + 2;
    return p;
  }
}
