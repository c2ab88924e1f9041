// keySlot (PROTOCOL.md §2.1): the CRC16/XMODEM check value, the hash-tag rules of the cluster spec,
// UTF-8 strings hashing as their bytes, and thousands of random binary and text keys checked
// against a real cluster-enabled redis-server's CLUSTER KEYSLOT.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keySlot, SLOT_COUNT } from '../../src/cluster/index.js';
import { RespireClient } from '../../src/index.js';
import { seededRandom } from '../kit/seeded-random.js';
import { useRedisServer } from '../kit/vitest-redis.js';

/** Bit-by-bit CRC16/XMODEM, written plainly as the reference. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The cluster spec's hash-tag rule over `crc16`. */
function referenceSlot(key: Buffer): number {
  const open = key.indexOf(0x7b);
  if (open !== -1) {
    const close = key.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(key.subarray(open + 1, close)) % SLOT_COUNT;
  }
  return crc16(key) % SLOT_COUNT;
}

describe('keySlot', () => {
  it('gives the CRC16/XMODEM check value for "123456789"', () => {
    // 0x31C3 is below 16384, so the slot is the CRC itself.
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot(Buffer.from('123456789'))).toBe(0x31c3);
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
  });

  it('hashes only a non-empty tag between the first { and the first } after it', () => {
    const whole = (key: string) => crc16(Buffer.from(key)) % SLOT_COUNT;
    const only = (tag: string) => keySlot(tag);
    expect(keySlot('{user1000}.following')).toBe(only('user1000'));
    expect(keySlot('{user1000}.followers')).toBe(only('user1000'));
    expect(keySlot('foo{bar}{zap}')).toBe(only('bar'));
    // Nested braces: from the first { to the first } after it.
    expect(keySlot('foo{{bar}}zap')).toBe(only('{bar'));
    expect(keySlot('}{a}')).toBe(only('a'));
    // An empty tag, `{}` first, and no closing brace: the whole key.
    expect(keySlot('foo{}{bar}')).toBe(whole('foo{}{bar}'));
    expect(keySlot('{}x')).toBe(whole('{}x'));
    expect(keySlot('ignore{}me')).toBe(whole('ignore{}me'));
    expect(keySlot('abc{def')).toBe(whole('abc{def'));
    expect(keySlot('abc}def{')).toBe(whole('abc}def{'));
    expect(keySlot('')).toBe(0);
    expect(keySlot('{}')).toBe(whole('{}'));
    // The tags differ from their keys' whole-key slots, so the cases above could have failed.
    expect(whole('{user1000}.following')).not.toBe(only('user1000'));
    expect(whole('foo{}{bar}')).not.toBe(only('bar'));
  });

  it('hashes a string as its UTF-8 bytes, a lone surrogate as U+FFFD, as the encoder writes it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc
            .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 20 })
            .map((units) => String.fromCharCode(...units)),
          fc
            .array(fc.constantFrom('{', '}', 'a', 'é', '日', '😀', '\ud800', '\udc00'), { maxLength: 12 })
            .map((parts) => parts.join('')),
        ),
        (key) => {
          const bytes = Buffer.from(key, 'utf8');
          expect(keySlot(key)).toBe(referenceSlot(bytes));
          expect(keySlot(bytes)).toBe(referenceSlot(bytes));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('hashes any bytes, Buffer or plain Uint8Array, as the reference does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (key) => {
        expect(keySlot(key)).toBe(referenceSlot(Buffer.from(key)));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes numbers and bigints as the decimal text the encoder sends', () => {
    expect(keySlot(42)).toBe(keySlot('42'));
    expect(keySlot(-7.5)).toBe(keySlot('-7.5'));
    expect(keySlot(1e21)).toBe(keySlot('1000000000000000000000'));
    expect(keySlot(-0)).toBe(keySlot('0'));
    expect(keySlot(12345678901234567890n)).toBe(keySlot('12345678901234567890'));
  });

  it('throws a TypeError for what is not a command argument', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true, {}, Symbol('k')]) {
      expect(() => keySlot(bad as never)).toThrow(TypeError);
    }
    expect(() => keySlot(Number.NaN)).toThrow('got NaN');
  });
});

describe('keySlot against CLUSTER KEYSLOT of a real node', () => {
  const server = useRedisServer({ args: ['--cluster-enabled', 'yes'] });
  const random = seededRandom();

  /** Keys rich in what the rules care about: braces, NUL, 0xFF, multi-byte text. */
  function randomKey(): string | Buffer {
    const pieces = ['{', '}', '{}', '\0', 'a', 'key', 'é', '日本', '😀', '\ud83d', ':', '{tag}'];
    switch (random.int(0, 3)) {
      case 0:
        return random.bytes(random.int(0, 24));
      case 1: {
        const bytes = random.bytes(random.int(0, 24));
        for (let i = 0; i < bytes.length; i++) {
          if (random.chance(0.3)) bytes[i] = random.pick([0x7b, 0x7d, 0x00, 0xff]);
        }
        return bytes;
      }
      case 2:
        return Array.from({ length: random.int(0, 8) }, () => random.pick(pieces)).join('');
      default:
        return String.fromCodePoint(
          ...Array.from({ length: random.int(0, 10) }, () => random.int(0, 0x10ffff)).filter(
            (c) => c < 0xd800 || c > 0xdfff,
          ),
        );
    }
  }

  it('agrees on thousands of random binary and UTF-8 keys', async () => {
    const client = await RespireClient.connect({ endpoints: [{ host: server.host, port: server.port }] });
    try {
      const fixed = [
        '123456789',
        '{user1000}.following',
        'foo{}{bar}',
        'foo{{bar}}zap',
        '{}x',
        'abc{def',
        '}{a}',
        '',
      ];
      const keys: (string | Buffer)[] = [...fixed, ...Array.from({ length: 4000 }, randomKey)];
      const slots = await Promise.all(keys.map((key) => client.send(['CLUSTER', 'KEYSLOT', key])));
      const mismatches = keys.flatMap((key, i) => {
        const ours = keySlot(key);
        return ours === slots[i] ? [] : [{ key: Buffer.from(key).toString('hex'), ours, server: slots[i] }];
      });
      expect(mismatches).toEqual([]);
      expect(slots[0]).toBe(0x31c3);
    } finally {
      await client.close();
    }
  });
});
