// The hash slot of a key (PROTOCOL.md §2.1): CRC16/XMODEM of the key's bytes, or of its hash tag,
// modulo 16384. Strings are hashed as the UTF-8 bytes the encoder writes, computed code unit by
// code unit, so hashing a key allocates nothing.

import { numberText } from '../resp/argument-writers.js';
import type { RespArgument } from '../resp/encoder.js';

/** Slots in a Redis Cluster: slot = CRC16(key) mod 16384. */
export const SLOT_COUNT = 16384;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** CRC16/XMODEM (poly 0x1021, init 0, no reflection, xorout 0), one entry per leading byte. */
const CRC_TABLE = /* @__PURE__ */ buildTable();

function buildTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[byte] = crc & 0xffff;
  }
  return table;
}

/**
 * The cluster slot (0 through 16383) of a key, as `CLUSTER KEYSLOT` computes it. A hash tag counts:
 * when the key holds a `{` and, after it, a `}` with at least one byte between them, only the bytes
 * between the first `{` and the first `}` after it are hashed (`{user1000}.following` and
 * `{user1000}.followers` share a slot; `{}x` and `x{` hash whole).
 *
 * Strings hash as their UTF-8 bytes (a lone surrogate as U+FFFD, as the encoder writes it); numbers
 * and bigints as the decimal text the encoder sends for them.
 *
 * @throws TypeError for NaN, ±Infinity or a value that is not a command argument, as the encoder does.
 */
export function keySlot(key: RespArgument): number {
  if (typeof key === 'string') return stringSlot(key);
  if (key instanceof Uint8Array) return bytesSlot(key);
  if (typeof key === 'bigint') return stringSlot(key.toString());
  if (typeof key === 'number' && Number.isFinite(key)) return stringSlot(numberText(key));
  throw new TypeError(
    `a key must be a string, Uint8Array, finite number or bigint, got ${describe(key as unknown)}`,
  );
}

function stringSlot(key: string): number {
  // `{` and `}` are ASCII, and UTF-8 never uses bytes below 0x80 inside a multi-byte character, so
  // the braces are found among the code units; a non-empty span of code units is at least one byte.
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crcOfText(key, open + 1, close) & (SLOT_COUNT - 1);
  }
  return crcOfText(key, 0, key.length) & (SLOT_COUNT - 1);
}

function bytesSlot(key: Uint8Array): number {
  const open = key.indexOf(OPEN_BRACE);
  if (open !== -1) {
    const close = key.indexOf(CLOSE_BRACE, open + 1);
    if (close > open + 1) return crcOfBytes(key, open + 1, close) & (SLOT_COUNT - 1);
  }
  return crcOfBytes(key, 0, key.length) & (SLOT_COUNT - 1);
}

function crcOfBytes(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >> 8) ^ bytes[i]!) & 0xff]!) & 0xffff;
  return crc;
}

/** CRC16 of the UTF-8 bytes of `text[start, end)`, encoded on the fly like `writeShortUtf8`. */
function crcOfText(text: string, start: number, end: number): number {
  let crc = 0;
  for (let j = start; j < end; j++) {
    let unit = text.charCodeAt(j);
    if (unit < 0x80) {
      crc = step(crc, unit);
    } else if (unit < 0x800) {
      crc = step(step(crc, 0xc0 | (unit >> 6)), 0x80 | (unit & 0x3f));
    } else if (unit <= 0xdbff && unit >= 0xd800 && j + 1 < end && isLowSurrogate(text.charCodeAt(j + 1))) {
      const point = 0x10000 + ((unit - 0xd800) << 10) + (text.charCodeAt(++j) - 0xdc00);
      crc = step(step(crc, 0xf0 | (point >> 18)), 0x80 | ((point >> 12) & 0x3f));
      crc = step(step(crc, 0x80 | ((point >> 6) & 0x3f)), 0x80 | (point & 0x3f));
    } else {
      if (unit >= 0xd800 && unit <= 0xdfff) unit = 0xfffd;
      crc = step(step(crc, 0xe0 | (unit >> 12)), 0x80 | ((unit >> 6) & 0x3f));
      crc = step(crc, 0x80 | (unit & 0x3f));
    }
  }
  return crc;
}

function step(crc: number, byte: number): number {
  return ((crc << 8) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
}

/** `charCodeAt` past the end is NaN, which is not a low surrogate. */
function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  return typeof value;
}
