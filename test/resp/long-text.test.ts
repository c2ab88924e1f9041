// Long bulk strings take an ASCII fast path from 32 KiB up (src/resp/scalars.ts); both sides of
// that branch must decode exactly what was sent.
import { describe, expect, it } from 'vitest';
import { RespDecoder } from '../../src/resp/decoder.js';

function decodeBulk(text: string): unknown {
  const payload = Buffer.from(text);
  let reply: unknown;
  const decoder = new RespDecoder({ onReply: (value) => (reply = value), onPush() {} });
  const frame = Buffer.concat([Buffer.from(`$${payload.length}\r\n`), payload, Buffer.from('\r\n')]);
  for (let i = 0; i < frame.length; i += 65536) decoder.write(frame.subarray(i, i + 65536));
  return reply;
}

describe('long bulk strings', () => {
  it.each([32 * 1024 - 1, 32 * 1024, 300_000])('decodes %i ASCII bytes', (size) => {
    const text = Buffer.alloc(size, 'abcXYZ019 ~').toString();
    expect(decodeBulk(text)).toBe(text);
  });

  it('decodes a long string whose only non-ASCII character comes last', () => {
    const text = `${Buffer.alloc(40_000, 'a').toString()}é`;
    expect(decodeBulk(text)).toBe(text);
  });

  it('decodes long multi-byte UTF-8 text split across chunks inside characters', () => {
    const text = Buffer.alloc(100_000, '日本語🙂').toString();
    expect(decodeBulk(text)).toBe(text);
  });
});

describe('string payloads collected across separate chunks', () => {
  it('decodes consecutive large strings correctly while reusing one scratch buffer', () => {
    const texts = [60_000, 100_000, 70_000, 5_000_000].map((size, i) =>
      Buffer.alloc(size, String.fromCharCode(0x61 + i)).toString(),
    );
    const frames = Buffer.concat(texts.map((text) => Buffer.from(`$${text.length}\r\n${text}\r\n`)));
    const replies: unknown[] = [];
    const decoder = new RespDecoder({ onReply: (value) => replies.push(value), onPush() {} });
    // Fresh memory per chunk, as a socket delivers it, so payloads are collected, not joined.
    for (let i = 0; i < frames.length; i += 16_384)
      decoder.write(Buffer.from(frames.subarray(i, i + 16_384)));
    expect(replies).toEqual(texts);
  });
});
