// Unit tests of the resilient publisher's record format (examples/resilient-publisher): CRC-32
// against known values, record and event round trips, and every way a record can be damaged.
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../examples/resilient-publisher/crc32.js';
import {
  decodeEvent,
  encodeEvent,
  encodeRecord,
  RECORD_HEADER_BYTES,
  scanRecords,
} from '../../examples/resilient-publisher/record-codec.js';

describe('crc32', () => {
  it('matches the standard check value and known vectors', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
    expect(crc32(Buffer.from('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339);
    expect(crc32(Buffer.alloc(32))).toBe(0x190a55ad);
  });

  it('continues over pieces and honours a range', () => {
    const whole = Buffer.from('hello, resilient world');
    const first = crc32(whole, 0, 7);
    expect(crc32(whole, 7, whole.length, first)).toBe(crc32(whole));
    expect(crc32(whole, 7, 16)).toBe(crc32(whole.subarray(7, 16)));
  });
});

describe('records', () => {
  const payloads = [Buffer.from('a'), Buffer.from('second record'), Buffer.alloc(300, 7)];
  const file = Buffer.concat(payloads.map(encodeRecord));

  it('round-trip, with offsets, in order', () => {
    const scan = scanRecords(file, 1000, 1 << 20);
    expect(scan.stop).toBe('end');
    expect(scan.validEnd).toBe(1000 + file.length);
    expect(scan.records.map((record) => record.payload)).toEqual(payloads);
    expect(scan.records.map((record) => record.offset)).toEqual([1000, 1009, 1030]);
    expect(scan.records[2]!.end).toBe(1000 + file.length);
  });

  it('stops after maxRecords with the rest untouched', () => {
    const scan = scanRecords(file, 0, 1 << 20, 2);
    expect(scan.records).toHaveLength(2);
    expect(scan.stop).toBe('end');
    expect(scan.validEnd).toBe(scan.records[1]!.end);
  });

  it('finds a torn tail at every cut inside the last record', () => {
    const lastStart = scanRecords(file, 0, 1 << 20).records[2]!.offset;
    for (let cut = lastStart + 1; cut < file.length; cut++) {
      const scan = scanRecords(file.subarray(0, cut), 0, 1 << 20);
      expect(scan.stop, `cut at ${cut}`).toBe('torn');
      expect(scan.validEnd).toBe(lastStart);
      expect(scan.records).toHaveLength(2);
    }
  });

  it('catches a change to any single byte: length, checksum or payload', () => {
    for (let offset = 0; offset < file.length; offset++) {
      const damaged = Buffer.from(file);
      damaged[offset] = damaged[offset]! ^ 0x5a;
      const scan = scanRecords(damaged, 0, 1 << 20);
      // The records before the damaged one survive; the damaged one and all after it do not.
      const hit = scanRecords(file, 0, 1 << 20).records.findIndex((record) => offset < record.end);
      expect(scan.records, `byte ${offset}`).toHaveLength(hit);
      expect(scan.stop).not.toBe('end');
    }
  });

  it('treats a zero length and a length above the maximum as corrupt', () => {
    expect(scanRecords(Buffer.alloc(64), 0, 1 << 20).stop).toBe('corrupt');
    const big = encodeRecord(Buffer.alloc(100, 1));
    expect(scanRecords(big, 0, 99).stop).toBe('corrupt');
    expect(scanRecords(big, 0, 100).stop).toBe('end');
  });

  it('frames with an eight-byte header', () => {
    expect(encodeRecord(Buffer.from('xyz'))).toHaveLength(RECORD_HEADER_BYTES + 3);
  });
});

describe('events', () => {
  it('round-trip keys and data, text or binary', () => {
    const binary = Buffer.from([0, 255, 13, 10, 1]);
    expect(decodeEvent(encodeEvent('k-1', 'payload ü'))).toEqual({
      key: 'k-1',
      data: Buffer.from('payload ü'),
    });
    expect(decodeEvent(encodeEvent('κλειδί', binary))).toEqual({ key: 'κλειδί', data: binary });
    expect(decodeEvent(encodeEvent('empty', ''))).toEqual({ key: 'empty', data: Buffer.alloc(0) });
  });

  it('refuse empty or oversized keys and payloads they did not make', () => {
    expect(() => encodeEvent('', 'x')).toThrow(RangeError);
    expect(() => encodeEvent('k'.repeat(1025), 'x')).toThrow(/1 to 1024/);
    expect(() => decodeEvent(Buffer.from([9]))).toThrow(RangeError);
    expect(() => decodeEvent(Buffer.from([9, 0, 65]))).toThrow(/overruns/);
  });
});
