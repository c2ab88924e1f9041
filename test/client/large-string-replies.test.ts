// Large string replies through RespireClient against a real server. Plain TCP sockets read into
// 1 MiB slabs (transport/slab-reader.ts) that are written again once the decoder has copied out
// the partial reply it still saw there: tens of MiB of replies, cut by reads at random places,
// must come back exact, ASCII and UTF-8 alike, while the client keeps reusing one slab.
import { describe, expect, it, vi } from 'vitest';
import { SLAB_BYTES } from '../../src/transport/connect.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { useTestClients } from './support.js';

const server = useRedisServer();
const { open } = useTestClients(server); // also restores the Buffer spy after the test

/** A value of `length` UTF-16 units whose text depends on `seed`; every third one is not ASCII. */
function textOf(length: number, seed: number): string {
  const unit = seed % 3 === 0 ? `é${seed}ü` : `a${seed}-`;
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

describe('large string replies', () => {
  it('come back exact over many reused slabs', async () => {
    const redis = await open();
    // Not powers of two, so no payload lands on a slab boundary by design.
    const sizes = [70_001, 150_003, 333_333, 999_999, 1_500_007, 5, 64 * 1024 + 3, 420_000];
    const values = sizes.map((size, i) => textOf(size, i));
    await Promise.all(values.map((value, i) => redis.set(`large-text:${i}`, value)));
    const slabs = vi.spyOn(Buffer, 'allocUnsafeSlow');
    let bytes = 0;
    for (let round = 0; round < 8; round++) {
      const got = await Promise.all(values.map((_, i) => redis.get(`large-text:${i}`)));
      got.forEach((text, i) => {
        expect(text?.length, `round ${round}, value ${i}: length`).toBe(values[i]!.length);
        expect(text === values[i], `round ${round}, value ${i}: same text`).toBe(true);
      });
      bytes += values.reduce((sum, value) => sum + Buffer.byteLength(value), 0);
    }
    // About 33 MiB were read; without reuse that is a fresh slab per MiB.
    expect(bytes).toBeGreaterThan(30 * SLAB_BYTES);
    const fresh = slabs.mock.calls.filter(([size]) => size === SLAB_BYTES).length;
    expect(fresh).toBeLessThanOrEqual(2);
  });
});
