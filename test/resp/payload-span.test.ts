// Payloads cut by chunk boundaries (src/resp/payload-reader.ts): chunks that continue the same
// memory are joined without a copy; any other continuation is copied once; both decode alike.
import { describe, expect, it } from 'vitest';
import { RespireProtocolError } from '../../src/errors.js';
import { RespDecoder } from '../../src/resp/decoder.js';

function frameOf(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`*2\r\n$${payload.length}\r\n`), payload, Buffer.from('\r\n:7\r\n')]);
}

function decode(chunks: Buffer[]): unknown[] {
  const replies: unknown[] = [];
  const decoder = new RespDecoder({
    onReply: (value) => replies.push(value),
    onPush() {},
    returnBuffers: true,
  });
  for (const chunk of chunks) decoder.write(chunk);
  return replies;
}

const payload = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256));

describe('payloads across chunks', () => {
  it('joins chunks that continue one buffer without copying the payload', () => {
    const frame = frameOf(payload);
    const chunks = [frame.subarray(0, 1000), frame.subarray(1000, 70_000), frame.subarray(70_000)];
    const [reply] = decode(chunks) as [[Buffer, number]];
    expect(reply[0].equals(payload)).toBe(true);
    expect(reply[0].buffer).toBe(frame.buffer);
    expect(reply[1]).toBe(7);
  });

  it('copies once when a later chunk lives elsewhere, and decodes the same bytes', () => {
    const frame = frameOf(payload);
    const chunks = [
      frame.subarray(0, 1000),
      frame.subarray(1000, 70_000),
      Buffer.from(frame.subarray(70_000)),
    ];
    const [reply] = decode(chunks) as [[Buffer, number]];
    expect(reply[0].equals(payload)).toBe(true);
    expect(reply[0].buffer).not.toBe(frame.buffer);
    expect(reply[1]).toBe(7);
  });

  it('does not join adjacent memory that starts after a held line', () => {
    const frame = frameOf(Buffer.from('hello'));
    const bytes = Buffer.concat([frame, frame]);
    const replies: unknown[] = [];
    for (let cut = 1; cut < bytes.length; cut++) {
      replies.push(...decode([bytes.subarray(0, cut), bytes.subarray(cut)]));
    }
    for (const reply of replies) expect(reply).toEqual([Buffer.from('hello'), 7]);
    expect(replies).toHaveLength(2 * (bytes.length - 1));
  });

  it('reports a missing CRLF after a joined payload at the right offset', () => {
    const frame = frameOf(payload);
    const broken = Buffer.from(frame);
    const header = `*2\r\n$${payload.length}\r\n`.length;
    broken[header + payload.length] = 0x58;
    const decoder = new RespDecoder({ onReply() {}, onPush() {} });
    decoder.write(broken.subarray(0, 5000));
    let error: unknown;
    try {
      decoder.write(broken.subarray(5000));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RespireProtocolError);
    expect((error as RespireProtocolError).offset).toBe(header + payload.length);
  });

  describe('releaseInput', () => {
    function stringDecoder(replies: unknown[], returnBuffers = false): RespDecoder {
      return new RespDecoder({ onReply: (value) => replies.push(value), onPush() {}, returnBuffers });
    }
    const text = 'é'.repeat(50_000) + 'x'.repeat(40_000);

    it('copies out an unfinished payload and line, so the caller may overwrite its chunks', () => {
      const frame = frameOf(Buffer.from(text));
      for (const cut of [2, 5, 9, 70_000, frame.length - 5, frame.length - 1]) {
        const replies: unknown[] = [];
        const decoder = stringDecoder(replies);
        // One slab, as the socket reader fills it: the cut falls inside the length line, the
        // payload or the integer after it.
        const slab = Buffer.from(frame);
        decoder.write(slab.subarray(0, cut));
        expect(decoder.releaseInput()).toBe(true);
        const rest = Buffer.from(slab.subarray(cut));
        slab.fill(0x2a);
        // The rest lands at the start of the same memory, as a reused slab would have it.
        rest.copy(slab);
        decoder.write(slab.subarray(0, rest.length));
        expect(replies).toEqual([[text, 7]]);
      }
    });

    it('refuses when replies are views of the chunks, a streamed string is open or it failed', () => {
      expect(stringDecoder([], true).releaseInput()).toBe(false);
      const decoder = stringDecoder([]);
      decoder.write(Buffer.from('$?\r\n;3\r\nabc\r\n'));
      expect(decoder.releaseInput()).toBe(false);
      const failed = stringDecoder([]);
      expect(() => failed.write(Buffer.from('*2\r\n@\r\n'))).toThrow(RespireProtocolError);
      expect(failed.releaseInput()).toBe(false);
      const replies: unknown[] = [];
      const fresh = stringDecoder(replies);
      expect(fresh.releaseInput()).toBe(true);
      fresh.write(Buffer.from('+OK\r\n'));
      expect(replies).toEqual(['OK']);
    });
  });
});
