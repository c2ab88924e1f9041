// The spool's on-disk record format and the event inside each record. A record is
//   [payload length: u32 LE][CRC-32 of the length field and the payload: u32 LE][payload]
// so a torn write (the file ends inside a record) and a corrupt one (a length out of range, or
// bytes that no longer match their checksum) are both recognised; the length is inside the
// checksum, so a damaged length cannot make a reader skip over good data unnoticed.
import { crc32 } from './crc32.js';

export const RECORD_HEADER_BYTES = 8;
/** Longest idempotency key, in UTF-8 bytes (it is also a stream field value). */
export const MAX_KEY_BYTES = 1024;
const KEY_LENGTH_BYTES = 2;

/** One framed record ready to append. */
export function encodeRecord(payload: Uint8Array): Buffer {
  const record = Buffer.allocUnsafe(RECORD_HEADER_BYTES + payload.length);
  record.writeUInt32LE(payload.length, 0);
  record.set(payload, RECORD_HEADER_BYTES);
  const checksum = crc32(record, RECORD_HEADER_BYTES, record.length, crc32(record, 0, 4));
  record.writeUInt32LE(checksum, 4);
  return record;
}

export interface ScannedRecord {
  /** Where the record starts, counted like `baseOffset`. */
  readonly offset: number;
  /** Where the next record starts. */
  readonly end: number;
  /** A view into the scanned buffer. */
  readonly payload: Buffer;
}

/**
 * Why a scan stopped: `end` — the buffer ended exactly after a record (or `maxRecords` were read);
 * `torn` — it ends inside a record; `corrupt` — a record's length is out of range or its checksum
 * does not match. Nothing at or after `validEnd` can be trusted.
 */
export type ScanStop = 'end' | 'torn' | 'corrupt';

export interface ScanResult {
  readonly records: ScannedRecord[];
  /** Offset just past the last good record (counted like `baseOffset`). */
  readonly validEnd: number;
  readonly stop: ScanStop;
}

/**
 * Reads consecutive records from `bytes`, which starts at `baseOffset` of its file. A length of 0
 * or above `maxPayloadBytes` is corrupt (no event is empty, none exceeds a segment).
 */
export function scanRecords(
  bytes: Buffer,
  baseOffset: number,
  maxPayloadBytes: number,
  maxRecords = Number.POSITIVE_INFINITY,
): ScanResult {
  const records: ScannedRecord[] = [];
  let position = 0;
  let stop: ScanStop = 'end';
  while (position < bytes.length && records.length < maxRecords) {
    const end = recordEnd(bytes, position, maxPayloadBytes);
    if (typeof end === 'string') {
      stop = end;
      break;
    }
    records.push({
      offset: baseOffset + position,
      end: baseOffset + end,
      payload: bytes.subarray(position + RECORD_HEADER_BYTES, end),
    });
    position = end;
  }
  return { records, validEnd: baseOffset + position, stop };
}

/**
 * Where the record at `position` of `bytes` ends, or why there is none: `torn` when `bytes` ends
 * inside it, `corrupt` when its length is out of range or its checksum does not match.
 */
export function recordEnd(
  bytes: Buffer,
  position: number,
  maxPayloadBytes: number,
): number | 'torn' | 'corrupt' {
  if (bytes.length - position < RECORD_HEADER_BYTES) return 'torn';
  const length = bytes.readUInt32LE(position);
  if (length === 0 || length > maxPayloadBytes) return 'corrupt';
  const end = position + RECORD_HEADER_BYTES + length;
  if (end > bytes.length) return 'torn';
  const expected = crc32(bytes, position + RECORD_HEADER_BYTES, end, crc32(bytes, position, position + 4));
  return bytes.readUInt32LE(position + 4) === expected ? end : 'corrupt';
}

/** What the spool keeps of an event: its idempotency key and its bytes. */
export interface SpooledEvent {
  readonly key: string;
  readonly data: Buffer;
}

/** An event as a record payload: `[key length: u16 LE][key, UTF-8][data]`. */
export function encodeEvent(key: string, data: string | Uint8Array): Buffer {
  const keyBytes = Buffer.byteLength(key);
  if (keyBytes === 0 || keyBytes > MAX_KEY_BYTES) {
    throw new RangeError(`idempotency key must be 1 to ${MAX_KEY_BYTES} UTF-8 bytes, got ${keyBytes}`);
  }
  const dataBytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  const payload = Buffer.allocUnsafe(KEY_LENGTH_BYTES + keyBytes + dataBytes);
  payload.writeUInt16LE(keyBytes, 0);
  payload.write(key, KEY_LENGTH_BYTES, 'utf8');
  if (typeof data === 'string') payload.write(data, KEY_LENGTH_BYTES + keyBytes, 'utf8');
  else payload.set(data, KEY_LENGTH_BYTES + keyBytes);
  return payload;
}

/** The inverse of `encodeEvent`; throws RangeError on a payload it did not produce. */
export function decodeEvent(payload: Buffer): SpooledEvent {
  if (payload.length < KEY_LENGTH_BYTES) throw new RangeError('event payload shorter than its key length');
  const keyBytes = payload.readUInt16LE(0);
  const dataStart = KEY_LENGTH_BYTES + keyBytes;
  if (keyBytes === 0 || dataStart > payload.length) throw new RangeError('event key overruns its payload');
  return {
    key: payload.toString('utf8', KEY_LENGTH_BYTES, dataStart),
    data: payload.subarray(dataStart),
  };
}
