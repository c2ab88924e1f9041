// Large string values through RespireClient against a real server: large ASCII strings leave as
// string chunks that the socket encodes (CommandEncoder.takeChunks), others are copied as UTF-8;
// either way the server stores exactly the UTF-8 bytes, and string replies read back equal.
import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../kit/vitest-redis.js';
import { useTestClients } from './support.js';

const server = useRedisServer();
const { open } = useTestClients(server, { commandTimeout: 0 });

/** `units` ASCII characters varying with position and `seed`, as one flat string. */
function ascii(units: number, seed: number): string {
  const bytes = Buffer.allocUnsafe(units);
  for (let i = 0; i < units; i++) bytes[i] = 97 + ((i * 7 + seed + (i >> 10)) % 26);
  return bytes.toString('latin1');
}

describe('large string values', () => {
  it('stores and reads back ASCII strings around the reference threshold and digit boundaries', async () => {
    const redis = await open();
    const sizes = [16 * 1024 - 1, 16 * 1024, 99_999, 100_000, 100 * 1024, 1024 * 1024];
    const values = sizes.map((size, i) => ascii(size, i));
    // Pipelined together, so string chunks and encoded bytes interleave in one corked write.
    await Promise.all(values.map((value, i) => redis.set(`large-strings:${i}`, value)));
    const lengths = await Promise.all(values.map((_, i) => redis.send(['STRLEN', `large-strings:${i}`])));
    expect(lengths).toEqual(sizes);
    const read = await Promise.all(values.map((_, i) => redis.get(`large-strings:${i}`)));
    read.forEach((value, i) => {
      expect(value === values[i], `value ${i} (${sizes[i]} units) reads back equal`).toBe(true);
    });
  });

  it('stores multi-byte UTF-8 and lone surrogates as Buffer.from(text) would', async () => {
    const redis = await open({ returnBuffers: true });
    const values = [
      `${ascii(99_997, 1)}€`,
      'é'.repeat(60_000),
      `${ascii(30_000, 2)}😀\ud800x\udc00${ascii(30_000, 3)}`,
      ascii(50_000, 4),
    ];
    await Promise.all(values.map((value, i) => redis.set(`large-utf8:${i}`, value)));
    const read = await Promise.all(values.map((_, i) => redis.get(`large-utf8:${i}`)));
    read.forEach((value, i) => {
      expect(Buffer.from(values[i]!, 'utf8').equals(value as unknown as Buffer), `value ${i} bytes`).toBe(
        true,
      );
    });
  });
});
