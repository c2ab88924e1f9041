// Writing RESP command arguments into a Buffer: bulk-string headers, strings as UTF-8 (short ones
// in JavaScript, long ones through Node's native writers) and numbers as positional decimal text.

/**
 * Node's `Buffer` string writers without the argument normalisation of `buf.write()`: undocumented
 * but long-standing `Buffer.prototype` methods that `@types/node` omits. The tests exercise both.
 */
interface RawStringWriters {
  latin1Write(text: string, offset: number, length: number): number;
  utf8Write(text: string, offset: number, length: number): number;
}

// Strings up to this many UTF-16 units are scanned and copied by a charCodeAt loop, which beats a
// call into C++ below it (a one-off measurement; its script is not kept). At most 33: the upper
// bound of a short string's header assumes 3 × units has two digits. Measured on Node 20: a
// `class … extends String` anywhere in the process (ioredis has one) turns String.prototype into
// a dictionary and makes every charCodeAt about 4 times slower, so compare encoders in separate
// processes.
export const SHORT_STRING_UNITS = 32;

const CR = 13;
const LF = 10;

/** Writes `$<length>\r\n` at `pos`; returns the position after it. */
export function writeHeader(out: Buffer, pos: number, length: number): number {
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
export function writeShortString(out: Buffer, pos: number, text: string): number {
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
export function writeString(out: Buffer, pos: number, text: string, length: number): number {
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
export function shortUtf8Length(text: string): number {
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
export function decimalDigits(value: number): number {
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
export function writeDecimal(out: Buffer, pos: number, value: number): number {
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
export function numberText(value: number): string {
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
