// RESP command encoder (PROTOCOL.md §1.5): commands as arrays of bulk strings, into exact-size or reused buffers.
import { RespireConfigurationError, RespireError } from '../errors.js';

/** One command argument. `Buffer` is a `Uint8Array`; numbers must be finite. */
export type RespArgument = string | Uint8Array | number | bigint;

/**
 * Node's `Buffer` string writers without the argument normalisation of `buf.write()`: undocumented
 * but long-standing `Buffer.prototype` methods that `@types/node` omits. The tests exercise both.
 */
interface RawStringWriters {
  latin1Write(text: string, offset: number, length: number): number;
  utf8Write(text: string, offset: number, length: number): number;
}

// Strings up to this many UTF-16 units are scanned and copied by a charCodeAt loop, which beats a
// call into C++ below it (measured with .tmp/encoder). At most 33: the upper bound of a short
// string's header assumes 3 × units has two digits. Measured on Node 20: a `class … extends
// String` anywhere in the process (ioredis has one) turns String.prototype into a dictionary and
// makes every charCodeAt about 4 times slower, so compare encoders in separate processes.
const SHORT_STRING_UNITS = 32;
// Uint8Arrays up to this many bytes are copied byte by byte rather than by `TypedArray#set`.
const SHORT_BYTES = 16;
const CR = 13;
const LF = 10;
const EXPECTED = 'expected a string, Uint8Array, finite number or bigint';

// The measuring pass leaves each argument and its payload length here for the writing pass, so
// a Proxy or getter cannot hand the two passes different values, and nothing is allocated per
// command. Encoding is synchronous and runs no user code for valid arguments, so one scratch
// serves every encoder. A length of -1 marks a short string measured only for an upper bound.
// Numbers that are not 32-bit integers, and bigints, are replaced by their decimal text.
let scratchArgs: (string | Uint8Array | number | undefined)[] = [];
let scratchLengths: number[] = [];
/** Scratch that a huge command grew past this many entries is replaced at the next command. */
const SCRATCH_RETAINED_ENTRIES = 4096;

/**
 * Encodes one command as a RESP array of bulk strings (`*N\r\n` then `$len\r\nbytes\r\n` each)
 * into a new Buffer of exactly the encoded size, which the caller owns.
 *
 * - Strings are written as UTF-8 and `len` counts bytes (`'日本'` → `$6`). A lone surrogate is
 *   written as U+FFFD (`EF BF BD`, 3 bytes), as `Buffer.from(text)` does, and counted so.
 * - Uint8Arrays (Buffers included) are copied byte for byte; CR and LF inside are fine. A large
 *   one still costs one copy, since the result is one contiguous Buffer.
 * - Numbers are written as positional decimal text, never in exponent form, because Redis parses
 *   integer arguments with `string2ll` (and floats with `strtod`, which reads these too): `42`,
 *   `-7`, `1.5`, `1e21` → `1000000000000000000000`, `1e-7` → `0.0000001`, always the shortest
 *   digits that read back as the same double. `-0` is written `0`. Bigints as decimal text.
 *
 * @throws TypeError for an empty command, or an argument that is NaN, ±Infinity, null, undefined,
 *   a boolean, a symbol, a function or another object. The message names the argument's 0-based
 *   position: `argument 2 is NaN: expected a string, Uint8Array, finite number or bigint`.
 */
export function encodeCommand(args: readonly RespArgument[]): Buffer {
  const size = measureCommand(args, true);
  const out = Buffer.allocUnsafe(size);
  const end = writeCommand(out, 0, args.length);
  // Stale pool bytes must never reach a socket, so the two passes must agree exactly.
  if (end !== size) throw new RespireError(`encoder wrote ${end} bytes of a ${size}-byte command`);
  return out;
}

/** Tuning of a {@link CommandEncoder}'s internal buffer. */
export interface CommandEncoderOptions {
  /** Bytes allocated up front, and the size the buffer shrinks back to. Default 16 KiB; at least 64. */
  initialCapacity?: number;
  /**
   * Largest internal buffer kept after `take()` or `clear()`; a larger one is replaced by one of
   * `initialCapacity`. Default 4 MiB (or `initialCapacity` if larger); at least `initialCapacity`.
   */
  maxRetainedCapacity?: number;
}

/**
 * Appends many commands to one reusable output buffer, for a pipeline that writes once per tick.
 *
 * Buffer policy: the internal buffer starts at `initialCapacity` and doubles whenever a command
 * does not fit. `take()` copies the pending bytes into a new Buffer when they fill less than half
 * of the internal buffer (a take under 4 KiB comes from Node's shared pool); otherwise it hands the
 * filled part over without copying and allocates a new internal buffer of the same capacity.
 * After a take or clear, a capacity above `maxRetainedCapacity` shrinks back to `initialCapacity`,
 * so one huge burst does not pin memory. Uint8Array arguments are always copied into the buffer
 * (one memcpy each), so the caller may reuse them as soon as `encode` returns.
 */
export class CommandEncoder {
  readonly #initialCapacity: number;
  readonly #maxRetainedCapacity: number;
  #buffer: Buffer;
  #length = 0;
  #commandCount = 0;

  constructor(options: CommandEncoderOptions = {}) {
    const initial = options.initialCapacity ?? 16 * 1024;
    if (!Number.isSafeInteger(initial) || initial < 64) {
      throw new RespireConfigurationError('initialCapacity', initial, 'an integer of at least 64 (bytes)');
    }
    const retained = options.maxRetainedCapacity ?? Math.max(initial, 4 * 1024 * 1024);
    if (!Number.isSafeInteger(retained) || retained < initial) {
      throw new RespireConfigurationError(
        'maxRetainedCapacity',
        retained,
        `an integer of at least ${initial}`,
      );
    }
    this.#initialCapacity = initial;
    this.#maxRetainedCapacity = retained;
    this.#buffer = Buffer.allocUnsafeSlow(initial);
  }

  /** Bytes encoded and not yet taken. */
  get byteLength(): number {
    return this.#length;
  }

  /** Commands encoded and not yet taken. */
  get commandCount(): number {
    return this.#commandCount;
  }

  /** Size of the internal buffer in bytes (for diagnostics and tests of the buffer policy). */
  get capacity(): number {
    return this.#buffer.length;
  }

  /**
   * Appends one command; see {@link encodeCommand} for the encoding and the TypeErrors. All or
   * nothing: when it throws, the pending bytes and counts are as they were.
   */
  encode(args: readonly RespArgument[]): void {
    // An upper bound is enough here, as the buffer has room to spare; it saves scanning every
    // short string twice.
    const bound = measureCommand(args, false);
    const start = this.#length;
    if (start + bound > this.#buffer.length) this.#grow(start + bound);
    const end = writeCommand(this.#buffer, start, args.length);
    if (end > start + bound) throw new RespireError(`encoder wrote past its ${bound}-byte bound`);
    this.#length = end;
    this.#commandCount++;
  }

  /** Returns exactly the pending bytes as a Buffer the caller owns, and empties the encoder. */
  take(): Buffer {
    const length = this.#length;
    const buffer = this.#buffer;
    let out: Buffer;
    if (length * 2 < buffer.length) {
      out = Buffer.allocUnsafe(length);
      buffer.copy(out, 0, 0, length);
      if (buffer.length > this.#maxRetainedCapacity)
        this.#buffer = Buffer.allocUnsafeSlow(this.#initialCapacity);
    } else {
      out = buffer.subarray(0, length);
      const next = buffer.length > this.#maxRetainedCapacity ? this.#initialCapacity : buffer.length;
      this.#buffer = Buffer.allocUnsafeSlow(next);
    }
    this.#length = 0;
    this.#commandCount = 0;
    return out;
  }

  /** Drops the pending bytes (for example when the connection they were meant for closed). */
  clear(): void {
    this.#length = 0;
    this.#commandCount = 0;
    if (this.#buffer.length > this.#maxRetainedCapacity) {
      this.#buffer = Buffer.allocUnsafeSlow(this.#initialCapacity);
    }
  }

  #grow(needed: number): void {
    let capacity = this.#buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = Buffer.allocUnsafeSlow(capacity);
    this.#buffer.copy(next, 0, 0, this.#length);
    this.#buffer = next;
  }
}

/**
 * First pass: validates the arguments, copies them to the scratch and returns the command's
 * encoded size. With `exact` false a short string is not scanned: its length is left as -1 and
 * it counts as 3 bytes a UTF-16 unit, the most it can take, so the size is an upper bound.
 */
function measureCommand(args: readonly RespArgument[], exact: boolean): number {
  if (!Array.isArray(args)) throw new TypeError('a command must be an array of arguments');
  const count = args.length;
  if (count === 0)
    throw new TypeError('a command needs at least one argument (its name), got an empty array');
  if (count > SCRATCH_RETAINED_ENTRIES || scratchArgs.length > SCRATCH_RETAINED_ENTRIES) {
    scratchArgs = [];
    scratchLengths = [];
  }
  const saved = scratchArgs;
  const lengths = scratchLengths;
  let size = 3 + decimalDigits(count);
  for (let i = 0; i < count; i++) {
    let arg: RespArgument | string = args[i]!;
    let length: number;
    if (typeof arg === 'string') {
      const units = arg.length;
      if (units > SHORT_STRING_UNITS) {
        length = Buffer.byteLength(arg, 'utf8');
      } else if (exact) {
        length = shortUtf8Length(arg);
      } else {
        saved[i] = arg;
        lengths[i] = -1;
        // `$`, at most 2 digits (3 × 32 < 100), CRLF, payload, CRLF.
        size += 7 + 3 * units;
        continue;
      }
    } else if (arg instanceof Uint8Array) {
      length = arg.length;
    } else if (typeof arg === 'number' && (arg | 0) === arg) {
      length = arg < 0 ? 1 + decimalDigits(-arg) : decimalDigits(arg);
    } else if ((typeof arg === 'number' && Number.isFinite(arg)) || typeof arg === 'bigint') {
      arg = typeof arg === 'number' ? numberText(arg) : arg.toString();
      length = arg.length;
    } else {
      saved.fill(undefined, 0, i);
      throw new TypeError(`argument ${i} is ${describe(arg)}: ${EXPECTED}`);
    }
    saved[i] = arg;
    lengths[i] = length;
    size += 5 + decimalDigits(length) + length;
  }
  return size;
}

/** Second pass: writes the `count` arguments in the scratch at `start`; returns the end. */
function writeCommand(out: Buffer, start: number, count: number): number {
  const saved = scratchArgs;
  const lengths = scratchLengths;
  out[start] = 0x2a; // '*'
  let pos = writeDecimal(out, start + 1, count);
  out[pos++] = CR;
  out[pos++] = LF;
  for (let i = 0; i < count; i++) {
    const arg = saved[i]!;
    const length = lengths[i]!;
    saved[i] = undefined;
    if (typeof arg === 'string') {
      pos = length < 0 ? writeShortString(out, pos, arg) : writeString(out, pos, arg, length);
      continue;
    }
    pos = writeHeader(out, pos, length);
    if (typeof arg === 'number') {
      if (arg < 0) out[pos] = 0x2d; // '-'
      writeDecimal(out, arg < 0 ? pos + 1 : pos, Math.abs(arg));
    } else if (length <= SHORT_BYTES) {
      for (let j = 0; j < length; j++) out[pos + j] = arg[j]!;
    } else {
      out.set(arg, pos);
    }
    pos += length;
    out[pos++] = CR;
    out[pos++] = LF;
  }
  return pos;
}

/** Writes `$<length>\r\n` at `pos`; returns the position after it. */
function writeHeader(out: Buffer, pos: number, length: number): number {
  out[pos] = 0x24; // '$'
  pos = writeDecimal(out, pos + 1, length);
  out[pos] = CR;
  out[pos + 1] = LF;
  return pos + 2;
}

/**
 * Writes a short string argument whose length was not measured in one scan: it is copied as if
 * ASCII, and only when a unit turns out not to be is it measured and rewritten as UTF-8.
 */
function writeShortString(out: Buffer, pos: number, text: string): number {
  const units = text.length;
  const header = pos;
  pos = writeHeader(out, pos, units);
  let bits = 0;
  for (let j = 0; j < units; j++) {
    const unit = text.charCodeAt(j);
    bits |= unit;
    out[pos + j] = unit;
  }
  if (bits < 0x80) {
    pos += units;
  } else {
    pos = writeShortUtf8(out, writeHeader(out, header, shortUtf8Length(text)), text);
  }
  out[pos] = CR;
  out[pos + 1] = LF;
  return pos + 2;
}

/** Writes a string argument whose UTF-8 length is known, with its header and trailing CRLF. */
function writeString(out: Buffer, pos: number, text: string, length: number): number {
  pos = writeHeader(out, pos, length);
  const units = text.length;
  if (length !== units) {
    pos =
      units <= SHORT_STRING_UNITS
        ? writeShortUtf8(out, pos, text)
        : pos + (out as unknown as RawStringWriters).utf8Write(text, pos, length);
  } else if (units <= SHORT_STRING_UNITS) {
    // UTF-8 length equals UTF-16 length only for pure ASCII, where latin1 bytes are UTF-8 bytes.
    for (let j = 0; j < units; j++) out[pos + j] = text.charCodeAt(j);
    pos += units;
  } else {
    pos += (out as unknown as RawStringWriters).latin1Write(text, pos, units);
  }
  out[pos] = CR;
  out[pos + 1] = LF;
  return pos + 2;
}

/**
 * UTF-8 byte length of a short string as Node writes it: a surrogate pair is 4 bytes, a lone
 * surrogate becomes U+FFFD (3 bytes).
 */
function shortUtf8Length(text: string): number {
  const units = text.length;
  let length = units;
  for (let j = 0; j < units; j++) {
    const unit = text.charCodeAt(j);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      length += 1;
    } else if (unit <= 0xdbff && unit >= 0xd800 && isLowSurrogate(text.charCodeAt(j + 1))) {
      // A surrogate pair: 2 units, 4 bytes.
      length += 2;
      j++;
    } else {
      // The rest of the BMP, and a lone surrogate written as U+FFFD: 1 unit, 3 bytes.
      length += 2;
    }
  }
  return length;
}

/**
 * Writes a short string as UTF-8 at `pos` in JavaScript, cheaper than a call into C++ at this size;
 * returns the end. Same bytes as `Buffer.from(text)`: a lone surrogate becomes U+FFFD.
 */
function writeShortUtf8(out: Buffer, pos: number, text: string): number {
  const units = text.length;
  for (let j = 0; j < units; j++) {
    let unit = text.charCodeAt(j);
    if (unit < 0x80) {
      out[pos++] = unit;
    } else if (unit < 0x800) {
      out[pos++] = 0xc0 | (unit >> 6);
      out[pos++] = 0x80 | (unit & 0x3f);
    } else if (unit <= 0xdbff && unit >= 0xd800 && isLowSurrogate(text.charCodeAt(j + 1))) {
      const point = 0x10000 + ((unit - 0xd800) << 10) + (text.charCodeAt(++j) - 0xdc00);
      out[pos++] = 0xf0 | (point >> 18);
      out[pos++] = 0x80 | ((point >> 12) & 0x3f);
      out[pos++] = 0x80 | ((point >> 6) & 0x3f);
      out[pos++] = 0x80 | (point & 0x3f);
    } else {
      if (unit >= 0xd800 && unit <= 0xdfff) unit = 0xfffd;
      out[pos++] = 0xe0 | (unit >> 12);
      out[pos++] = 0x80 | ((unit >> 6) & 0x3f);
      out[pos++] = 0x80 | (unit & 0x3f);
    }
  }
  return pos;
}

/** `charCodeAt` past the end is NaN, which is not a low surrogate. */
function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Number of decimal digits of a non-negative safe integer. */
function decimalDigits(value: number): number {
  if (value < 10) return 1;
  if (value < 100) return 2;
  if (value < 1000) return 3;
  if (value < 10000) return 4;
  if (value < 100000) return 5;
  let digits = 6;
  for (let limit = 1000000; value >= limit; limit *= 10) digits++;
  return digits;
}

/** Writes a non-negative safe integer in decimal at `pos`; returns the position after it. */
function writeDecimal(out: Buffer, pos: number, value: number): number {
  if (value < 10) {
    out[pos] = 0x30 + value;
    return pos + 1;
  }
  const end = pos + decimalDigits(value);
  let p = end;
  while (value > 0) {
    const quotient = Math.floor(value / 10);
    out[--p] = 0x30 + value - quotient * 10;
    value = quotient;
  }
  return end;
}

/**
 * Positional decimal text of a finite number. `String(number)` is already the shortest text that
 * reads back as the same double; only its exponent form (`1.5e+21`, `-2e-7`) is rewritten, with
 * the same digits, so that `string2ll` accepts every integer and `strtod` reads the same value.
 */
function numberText(value: number): string {
  const text = String(value);
  const e = text.indexOf('e');
  if (e === -1) return text;
  const negative = value < 0;
  const mantissa = text.slice(negative ? 1 : 0, e);
  const dot = mantissa.indexOf('.');
  const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  // Where the decimal point falls within `digits` once the exponent is applied.
  const point = (dot === -1 ? mantissa.length : dot) + Number(text.slice(e + 1));
  let body: string;
  if (point >= digits.length) body = digits + '0'.repeat(point - digits.length);
  else if (point <= 0) body = `0.${'0'.repeat(-point)}${digits}`;
  else body = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${body}` : body;
}

/** Names an invalid argument without calling any of its methods or getters. */
function describe(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return String(value);
    case 'boolean':
      return `a boolean (${value})`;
    case 'symbol':
    case 'function':
      return `a ${typeof value}`;
    case 'undefined':
      return 'undefined';
    default:
      if (value === null) return 'null';
      if (Array.isArray(value)) return 'an array';
      if (ArrayBuffer.isView(value)) return 'a typed array or DataView other than Uint8Array';
      if (value instanceof ArrayBuffer) return 'an ArrayBuffer (wrap it in a Uint8Array)';
      return 'an object';
  }
}
