import { describe, expect, it } from 'vitest';
import { SlabReader } from '../../src/transport/slab-reader.js';

/** Simulates the kernel filling `bytes` of the buffer the reader hands out. */
function read(reader: SlabReader, bytes: number, fill: number): void {
  const target = reader.buffer();
  target.fill(fill, 0, bytes);
  reader.callback(bytes, target);
}

describe('SlabReader', () => {
  it('lays consecutive reads side by side in one slab, and starts a new slab when little is left', () => {
    const reader = new SlabReader(200 * 1024);
    const chunks: Buffer[] = [];
    reader.attach((chunk) => chunks.push(chunk));
    read(reader, 100 * 1024, 1);
    read(reader, 30 * 1024, 2);
    read(reader, 10, 3);
    expect(chunks.map((chunk) => chunk.length)).toEqual([100 * 1024, 30 * 1024, 10]);
    expect(chunks[1]!.buffer).toBe(chunks[0]!.buffer);
    expect(chunks[1]!.byteOffset).toBe(chunks[0]!.byteOffset + chunks[0]!.length);
    // 200 KiB - 130 KiB - 10 B is over 64 KiB: same slab; one more large read leaves less.
    read(reader, 10 * 1024, 4);
    read(reader, 10, 5);
    expect(chunks[3]!.buffer).toBe(chunks[0]!.buffer);
    expect(chunks[4]!.buffer).not.toBe(chunks[0]!.buffer);
    // Earlier chunks keep their bytes: slab memory is never handed out twice.
    expect(chunks[0]!.every((byte) => byte === 1)).toBe(true);
    expect(chunks[1]!.every((byte) => byte === 2)).toBe(true);
  });

  it('keeps reads that arrive before a sink is attached, in order', () => {
    const reader = new SlabReader(128 * 1024);
    read(reader, 3, 7);
    read(reader, 2, 8);
    const seen: number[][] = [];
    reader.attach((chunk) => seen.push([...chunk]));
    read(reader, 1, 9);
    expect(seen).toEqual([[7, 7, 7], [8, 8], [9]]);
  });

  it('writes a full slab again once its sink released it, and takes a new one when it cannot', () => {
    const reader = new SlabReader(128 * 1024);
    const chunks: Buffer[] = [];
    let releasable = true;
    let releases = 0;
    reader.attach(
      (chunk) => chunks.push(chunk),
      () => {
        releases++;
        return releasable;
      },
    );
    read(reader, 100 * 1024, 1);
    // 28 KiB left, under the 64 KiB a read needs: the sink released the slab, so it starts over.
    read(reader, 10, 2);
    expect(releases).toBe(1);
    expect(chunks[1]!.buffer).toBe(chunks[0]!.buffer);
    expect(chunks[1]!.byteOffset).toBe(chunks[0]!.byteOffset);
    read(reader, 100 * 1024, 3);
    releasable = false;
    read(reader, 10, 4);
    expect(releases).toBe(2);
    expect(chunks[3]!.buffer).not.toBe(chunks[2]!.buffer);
    // The slab it could not release keeps its bytes.
    expect(chunks[2]!.every((byte) => byte === 3)).toBe(true);
  });
});
