// Issue 13 "Tests with 256 MiB values": a 256 MiB value written with setFromStream and read back
// with getStream, checked by digest, while the process's memory (resident set and the memory of
// its Buffers) stays far below the value's size, because neither direction holds it whole.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../kit/vitest-redis.js';
import { useTestClients } from './support.js';

const server = useRedisServer();
const { open } = useTestClients(server);

const VALUE_BYTES = 256 * 1024 * 1024;
const PIECE_BYTES = 256 * 1024;
/** "Far below": under a quarter of the value, whatever the garbage collector leaves lying around. */
const MEMORY_BOUND = VALUE_BYTES / 4;

/** The highest resident set and Buffer memory seen since `start`, above what they were then. */
class MemoryPeak {
  private readonly baseRss: number;
  private readonly baseBuffers: number;
  rss = 0;
  buffers = 0;

  constructor() {
    const now = process.memoryUsage();
    this.baseRss = now.rss;
    this.baseBuffers = now.arrayBuffers;
  }

  sample(): void {
    const now = process.memoryUsage();
    this.rss = Math.max(this.rss, now.rss - this.baseRss);
    this.buffers = Math.max(this.buffers, now.arrayBuffers - this.baseBuffers);
  }
}

/** 256 MiB in fresh pieces (a piece handed to a socket must not be reused), digested as produced. */
async function* value(digest: ReturnType<typeof createHash>, peak: MemoryPeak): AsyncGenerator<Buffer> {
  for (let at = 0; at < VALUE_BYTES; at += PIECE_BYTES) {
    const piece = Buffer.alloc(PIECE_BYTES, (at / PIECE_BYTES) & 0xff);
    piece.writeUInt32BE(at, 0);
    digest.update(piece);
    peak.sample();
    yield piece;
  }
}

describe('256 MiB values', () => {
  it('go up and come back down with the process memory far below their size', async () => {
    // A 256 MiB reply takes the server a while to copy into its output buffer on a loaded machine:
    // the test is about memory, so the server's silence may last longer than the default 5 s.
    const redis = await open({ returnBuffers: true, commandTimeout: 60_000 });
    const sent = createHash('sha256');
    const upload = new MemoryPeak();
    expect(await redis.setFromStream('stream:huge', value(sent, upload), { length: VALUE_BYTES })).toBe(true);
    expect(await redis.strlen('stream:huge')).toBe(VALUE_BYTES);

    const received = createHash('sha256');
    const download = new MemoryPeak();
    const stream = redis.getStream('stream:huge');
    let bytes = 0;
    for await (const chunk of stream) {
      received.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
      download.sample();
    }
    expect(bytes).toBe(VALUE_BYTES);
    expect(received.digest('hex')).toBe(sent.digest('hex'));
    console.log(
      `256 MiB: upload peak +${mib(upload.rss)} MiB RSS, +${mib(upload.buffers)} MiB buffers; ` +
        `download peak +${mib(download.rss)} MiB RSS, +${mib(download.buffers)} MiB buffers`,
    );
    for (const peak of [upload, download]) {
      expect(peak.rss).toBeLessThan(MEMORY_BOUND);
      expect(peak.buffers).toBeLessThan(MEMORY_BOUND);
    }
    await redis.del('stream:huge');
  }, 120_000);
});

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
