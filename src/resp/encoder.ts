// RESP command encoder (PROTOCOL.md §1.5): commands as arrays of bulk strings, into exact-size or reused buffers.
import { RespireConfigurationError, RespireError } from '../errors.js';
import {
  decimalDigits,
  numberText,
  SHORT_STRING_UNITS,
  shortUtf8Length,
  writeDecimal,
  writeHeader,
  writeShortString,
  writeString,
} from './argument-writers.js';

/** One command argument. `Buffer` is a `Uint8Array`; numbers must be finite. */
export type RespArgument = string | Uint8Array | number | bigint;

// Uint8Arrays up to this many bytes are copied byte by byte rather than by `TypedArray#set`.
const SHORT_BYTES = 16;
// Uint8Arrays from this many bytes are referenced, not copied, by a CommandEncoder. Measured once
// through a loopback socket (the script is not kept): two more chunks in a corked writev cost
// about as much as a 2 KiB memcpy, and referencing saves a quarter of the CPU time at 16 KiB.
// Smaller values stay copied, so the must-not-modify contract only covers ones where it pays.
const DEFAULT_LARGE_ARGUMENT_BYTES = 16 * 1024;
// ASCII strings from this many units are referenced by a CommandEncoder too, as string chunks the
// socket encodes in C++ (Latin-1, one byte a unit) straight into its write: no copy into the
// encoder's buffer, no fresh buffer each large command. Measured with 100 KiB SETs (issue 17):
// see bench/suites/client.ts; and with 100 SETs of 8 KiB at once (alternating 8 and 16 Ki in one
// run, six pairs): 6-13 µs CPU a SET referenced against 9-103 µs copied, where the copies went
// to a fresh encoder buffer each tick (`writeString` 22% of the profile, first touches of new
// memory). Non-ASCII strings stay copied: as a 'utf8' string chunk they measured no better, and a
// Buffer.from each twice as slow. Strings are immutable, so no contract is needed for them.
const LARGE_STRING_UNITS = 8 * 1024;
const CR = 13;
const LF = 10;
const EXPECTED = 'expected a string, Uint8Array, finite number or bigint';

// The measuring pass leaves each argument and its payload length here for the writing pass, so
// a Proxy or getter cannot hand the two passes different values, and nothing is allocated per
// command. Encoding is synchronous and runs no user code for valid arguments, so one scratch
// serves every encoder. A length of -1 marks a short string measured only for an upper bound; a
// length of -2 - n a large ASCII string of n bytes to be referenced rather than copied.
// Numbers that are not 32-bit integers, and bigints, are replaced by their decimal text.
let scratchArgs: (string | Uint8Array | number | undefined)[] = [];
let scratchLengths: number[] = [];
/** Scratch that a huge command grew past this many entries is replaced at the next command. */
const SCRATCH_RETAINED_ENTRIES = 4096;
/** A pending tail up to this size moves to a new buffer by copy rather than being sealed. */
const TAIL_COPY_BYTES = 64 * 1024;

/**
 * Encodes one command as a RESP array of bulk strings (`*N\r\n` then `$len\r\nbytes\r\n` each)
 * into a new Buffer of exactly the encoded size, which the caller owns.
 *
 * - Strings are written as UTF-8 and `len` counts bytes (`'日本'` → `$6`). A lone surrogate is
 *   written as U+FFFD (`EF BF BD`, 3 bytes), as `Buffer.from(text)` does, and counted so.
 * - Uint8Arrays (Buffers included) are copied byte for byte; CR and LF inside are fine. A large
 *   one still costs one copy, since the result is one contiguous Buffer; a pipeline that wants
 *   large values written by reference uses {@link CommandEncoder.takeChunks} instead.
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
  const size = measureCommand(args, true, Number.POSITIVE_INFINITY, false);
  const out = Buffer.allocUnsafe(size);
  const end = writeCommand(out, 0, args.length, Number.POSITIVE_INFINITY, undefined);
  // Stale pool bytes must never reach a socket, so the two passes must agree exactly.
  if (end !== size) throw new RespireError(`encoder wrote ${end} bytes of a ${size}-byte command`);
  return out;
}

/** Tuning of a {@link CommandEncoder}'s internal buffer and of which arguments it copies. */
export interface CommandEncoderOptions {
  /** Bytes allocated up front, and the size the buffer shrinks back to. Default 16 KiB; at least 64. */
  initialCapacity?: number;
  /**
   * Largest internal buffer kept after `take()`, `takeChunks()` or `clear()`; a larger one is
   * replaced by one of `initialCapacity`. Default 4 MiB (or `initialCapacity` if larger); at least
   * `initialCapacity`.
   */
  maxRetainedCapacity?: number;
  /**
   * Uint8Array arguments of at least this many bytes are kept by reference instead of copied (see
   * {@link CommandEncoder}). Default 16 KiB; an integer of at least 1, or `Infinity` to copy all.
   */
  largeArgumentBytes?: number;
}

/**
 * Appends many commands to one reusable output buffer, for a pipeline that writes once per tick.
 *
 * Large arguments: a Uint8Array of at least `largeArgumentBytes` is not copied. The encoder seals
 * the bytes it has written so far as one chunk, keeps a reference to the argument as the next
 * chunk, and writes the argument's trailing CRLF and later commands after it. `takeChunks()`
 * returns the pending output as those Buffers in order, for a corked socket to write without a
 * copy; `take()` joins them into one Buffer. Smaller Uint8Arrays are copied (one memcpy each),
 * so the caller may reuse them as soon as `encode` returns.
 *
 * Contract: a referenced argument must not be modified until the socket has written it. The
 * client's pipeline (`Connection`) writes the chunks in the tick that encoded them, and passes
 * `copyArguments` for every command whose promise may settle before its bytes leave (fire and
 * forget, or abortable after the write). Any other command's reply comes after the server read
 * the whole command, and its errors and timeouts after the socket was destroyed, so users may
 * modify a Buffer again once the promise of the command that carried it settles.
 *
 * Buffer policy: the internal buffer starts at `initialCapacity`. Its bytes that are sealed (in a
 * pending chunk) or handed out by `takeChunks()` are never written again. A command that does not
 * fit makes a new buffer: while nothing of the old one is sealed or handed out, the new one is
 * twice as large (or more, until the command fits) and the pending bytes are copied over; when
 * only handed-out bytes precede a pending tail of at most 64 KiB, that tail is copied over to a
 * new buffer of the same capacity (or more, until the command fits); else
 * the unsealed tail is sealed where it is and the new one keeps the capacity (or doubles until the
 * command fits). `take()` copies the pending bytes into a new Buffer when there are chunks (their
 * bytes of the internal buffer are then free again) or when they fill less than half of the
 * internal buffer (a take under 4 KiB comes from Node's shared pool); otherwise it hands the
 * filled part over without copying and allocates a new internal buffer of the same capacity.
 * `takeChunks()` hands its parts of the buffer over without copying and goes on writing after
 * them. After a take or clear, a capacity above `maxRetainedCapacity` shrinks back to
 * `initialCapacity`, so one huge burst does not pin memory.
 */
export class CommandEncoder {
  readonly #initialCapacity: number;
  readonly #maxRetainedCapacity: number;
  readonly #largeArgumentBytes: number;
  #buffer: Buffer;
  /** Bytes of `#buffer` before this were handed out by `takeChunks()`: never written again. */
  #floor = 0;
  /** End of the encoded bytes in `#buffer`; the unsealed tail runs from `#pending.start` to here. */
  #length = 0;
  readonly #pending = new PendingChunks();
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
    const large = options.largeArgumentBytes ?? DEFAULT_LARGE_ARGUMENT_BYTES;
    if (!(Number.isSafeInteger(large) && large >= 1) && large !== Number.POSITIVE_INFINITY) {
      throw new RespireConfigurationError(
        'largeArgumentBytes',
        large,
        'an integer of at least 1 (bytes), or Infinity',
      );
    }
    this.#initialCapacity = initial;
    this.#maxRetainedCapacity = retained;
    this.#largeArgumentBytes = large;
    this.#buffer = Buffer.allocUnsafeSlow(initial);
  }

  /** Bytes encoded and not yet taken, referenced arguments included. */
  get byteLength(): number {
    return this.#pending.bytes + this.#length - this.#pending.start;
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
   * nothing: when it throws, the pending bytes and counts are as they were. With `copyArguments`
   * every Uint8Array is copied, so the caller may change it as soon as `encode` returns.
   */
  encode(args: readonly RespArgument[], copyArguments = false): void {
    const largeBytes = copyArguments ? Number.POSITIVE_INFINITY : this.#largeArgumentBytes;
    // An upper bound is enough here, as the buffer has room to spare; it saves scanning every
    // short string twice. Referenced payloads are not part of it.
    const bound = measureCommand(args, false, largeBytes, true);
    if (this.#length + bound > this.#buffer.length) this.#grow(bound);
    const start = this.#length;
    const end = writeCommand(this.#buffer, start, args.length, largeBytes, this.#pending);
    if (end > start + bound) throw new RespireError(`encoder wrote past its ${bound}-byte bound`);
    this.#length = end;
    this.#commandCount++;
  }

  /** Returns exactly the pending bytes as one Buffer the caller owns, and empties the encoder. */
  take(): Buffer {
    const pending = this.#pending;
    const buffer = this.#buffer;
    const start = pending.start;
    const length = this.#length;
    let out: Buffer;
    if (pending.list.length !== 0) {
      out = Buffer.allocUnsafe(pending.bytes + length - start);
      let at = 0;
      for (const chunk of pending.list) {
        if (typeof chunk === 'string') out.write(chunk, at, 'latin1');
        else out.set(chunk, at);
        at += chunk.length;
      }
      buffer.copy(out, at, start, length);
      pending.drop();
      this.#rewind();
    } else if ((length - start) * 2 < buffer.length) {
      out = Buffer.allocUnsafe(length - start);
      buffer.copy(out, 0, start, length);
      this.#rewind();
    } else {
      out = buffer.subarray(start, length);
      this.#replace(buffer.length > this.#maxRetainedCapacity ? this.#initialCapacity : buffer.length);
    }
    this.#commandCount = 0;
    return out;
  }

  /**
   * Returns the pending output as chunks in order, and empties the encoder: parts of the internal
   * buffer (handed over, never written again), referenced arguments (see the class contract) and
   * large ASCII strings, to be written with the 'latin1' encoding. Empty when nothing is pending.
   * Writing them in order, corked, sends exactly `take()`'s bytes.
   */
  takeChunks(): (Buffer | string)[] {
    const pending = this.#pending;
    const chunks = pending.list;
    if (this.#length > pending.start) chunks.push(this.#buffer.subarray(pending.start, this.#length));
    pending.list = [];
    pending.bytes = 0;
    this.#floor = pending.start = this.#length;
    if (this.#buffer.length > this.#maxRetainedCapacity) this.#replace(this.#initialCapacity);
    this.#commandCount = 0;
    return chunks;
  }

  /** Drops the pending bytes (for example when the connection they were meant for closed). */
  clear(): void {
    this.#pending.drop();
    this.#rewind();
    this.#commandCount = 0;
  }

  /** Nothing is pending: writes resume at the floor, in a smaller buffer if this one grew too big. */
  #rewind(): void {
    if (this.#buffer.length > this.#maxRetainedCapacity) this.#replace(this.#initialCapacity);
    else this.#pending.start = this.#length = this.#floor;
  }

  /** Starts a new internal buffer; the old one stays valid for whoever holds parts of it. */
  #replace(capacity: number): void {
    this.#buffer = Buffer.allocUnsafeSlow(capacity);
    this.#floor = this.#pending.start = this.#length = 0;
  }

  /**
   * Makes room for `bound` more bytes in a new buffer (see the buffer policy). Doubling and
   * copying keeps `take()`'s hand-over whole; once part of the buffer is sealed, sealing the tail
   * too costs a chunk instead of a copy.
   */
  #grow(bound: number): void {
    const pending = this.#pending;
    const previous = this.#buffer;
    const length = this.#length;
    const start = pending.start;
    let capacity = previous.length;
    const tail = length - start;
    if (start === 0 || (pending.list.length === 0 && tail <= TAIL_COPY_BYTES)) {
      // The tail is all that is pending: copied over, the next take is still one chunk (one
      // write, not a corked writev).
      while (capacity < tail + bound) capacity *= 2;
      this.#replace(capacity);
      previous.copy(this.#buffer, 0, start, length);
      this.#length = tail;
      return;
    }
    while (capacity < bound) capacity *= 2;
    if (length > start) pending.seal(previous, length);
    this.#replace(capacity);
  }
}

/**
 * What a {@link CommandEncoder} has sealed ahead of its unsealed tail: parts of its buffer and
 * referenced arguments, in order.
 */
class PendingChunks {
  /** Buffers, and large ASCII strings (one byte a unit). */
  list: (Buffer | string)[] = [];
  /** Total length of `list`. */
  bytes = 0;
  /** First byte of the encoder's buffer not sealed into `list` (the unsealed tail's start). */
  start = 0;

  /** Seals the bytes of `out` from `start` to `end` as the next chunk. */
  seal(out: Buffer, end: number): void {
    this.list.push(out.subarray(this.start, end));
    this.bytes += end - this.start;
    this.start = end;
  }

  /**
   * Seals `out` up to `pos` and queues the first `length` bytes of `arg` after it, uncopied; a
   * string is an ASCII one of `length` units.
   */
  reference(out: Buffer, pos: number, arg: Uint8Array | string, length: number): void {
    if (pos > this.start) this.seal(out, pos);
    this.list.push(
      typeof arg === 'string' || (Buffer.isBuffer(arg) && arg.length === length)
        ? arg
        : Buffer.from(arg.buffer, arg.byteOffset, length),
    );
    this.bytes += length;
  }

  /** Forgets the chunks; the sealed bytes of the buffer are the encoder's again. */
  drop(): void {
    if (this.list.length !== 0) this.list = [];
    this.bytes = 0;
  }
}

/**
 * First pass: validates the arguments, copies them to the scratch and returns the command's
 * encoded size. With `exact` false a short string is not scanned: its length is left as -1 and
 * it counts as 3 bytes a UTF-16 unit, the most it can take, so the size is an upper bound. The
 * payload of a Uint8Array of at least `largeBytes`, and with `referenceStrings` that of an ASCII
 * string of at least LARGE_STRING_UNITS units, is left out: it will be referenced.
 */
function measureCommand(
  args: readonly RespArgument[],
  exact: boolean,
  largeBytes: number,
  referenceStrings: boolean,
): number {
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
        // As many bytes as units: only ASCII, whose Latin-1 bytes are its UTF-8 bytes.
        if (referenceStrings && length === units && units >= LARGE_STRING_UNITS) {
          saved[i] = arg;
          lengths[i] = -2 - length;
          size += 5 + decimalDigits(length);
          continue;
        }
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
      if (length >= largeBytes) {
        saved[i] = arg;
        lengths[i] = length;
        size += 5 + decimalDigits(length);
        continue;
      }
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

/**
 * Second pass: writes the `count` arguments in the scratch at `start`; returns the end. A Uint8Array
 * of at least `largeBytes`, and a string measured for referencing, go to `pending` by reference:
 * only their header and CRLF are written.
 */
function writeCommand(
  out: Buffer,
  start: number,
  count: number,
  largeBytes: number,
  pending: PendingChunks | undefined,
): number {
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
      if (length < -1) {
        pos = writeHeader(out, pos, -2 - length);
        pending!.reference(out, pos, arg, -2 - length);
        out[pos++] = CR;
        out[pos++] = LF;
      } else {
        pos = length < 0 ? writeShortString(out, pos, arg) : writeString(out, pos, arg, length);
      }
      continue;
    }
    pos = writeHeader(out, pos, length);
    if (typeof arg === 'number') {
      if (arg < 0) out[pos] = 0x2d; // '-'
      writeDecimal(out, arg < 0 ? pos + 1 : pos, Math.abs(arg));
      pos += length;
    } else if (length >= largeBytes) {
      pending!.reference(out, pos, arg, length);
    } else if (length <= SHORT_BYTES) {
      for (let j = 0; j < length; j++) out[pos + j] = arg[j]!;
      pos += length;
    } else {
      out.set(arg, pos);
      pos += length;
    }
    out[pos++] = CR;
    out[pos++] = LF;
  }
  return pos;
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
