// The kit's own RESP framing: request encoding, frame boundaries, request reading.
import { describe, expect, it } from 'vitest';
import { encodePipeline, encodeRequest, frameEnd, readRequest, splitFrames } from './resp-wire.js';

describe('encodeRequest', () => {
  it('writes arrays of bulk strings with byte lengths', () => {
    expect(encodeRequest(['SET', '日本', 12, '']).toString()).toBe(
      '*4\r\n$3\r\nSET\r\n$6\r\n日本\r\n$2\r\n12\r\n$0\r\n\r\n',
    );
    expect(encodeRequest([Buffer.from([0x0d, 0x0a, 0xff])])).toEqual(
      Buffer.from('*1\r\n$3\r\n\r\n\xff\r\n', 'latin1'),
    );
    expect(encodePipeline([['PING'], ['GET', 'k']]).toString()).toBe(
      '*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n',
    );
  });
});

// Each vector is one complete top-level frame.
const frames = [
  '+OK\r\n',
  '-ERR bad\r\n',
  ':-12\r\n',
  '$5\r\na\r\nbc\r\n',
  '$0\r\n\r\n',
  '$-1\r\n',
  '*-1\r\n',
  '*0\r\n',
  '_\r\n',
  '#t\r\n',
  ',-nan\r\n',
  '(123456789012345678901234567890\r\n',
  '!3\r\nE x\r\n',
  '=8\r\ntxt:a\r\nb\r\n',
  '*2\r\n*1\r\n:1\r\n%1\r\n+k\r\n~2\r\n:1\r\n:2\r\n',
  '%2\r\n+a\r\n*0\r\n+b\r\n_\r\n',
  '>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n',
  '|1\r\n+ttl\r\n:3\r\n$1\r\nv\r\n',
  '|1\r\n+a\r\n:1\r\n>2\r\n+invalidate\r\n_\r\n',
  '*2\r\n|1\r\n+a\r\n:1\r\n:7\r\n:8\r\n',
  '$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;1\r\nd\r\n;0\r\n',
  '*?\r\n:1\r\n*?\r\n.\r\n$?\r\n;1\r\na\r\n;0\r\n.\r\n',
  '%?\r\n+a\r\n:1\r\n.\r\n',
];

describe('frameEnd', () => {
  it.each(frames)('finds the end of %j and sees every proper prefix as incomplete', (text) => {
    const bytes = Buffer.from(text);
    expect(frameEnd(bytes)).toBe(bytes.length);
    for (let cut = 0; cut < bytes.length; cut++) expect(frameEnd(bytes.subarray(0, cut))).toBe(-1);
  });

  it('handles deep nesting without recursion', () => {
    const bytes = Buffer.from(`${'*1\r\n'.repeat(100_000)}:1\r\n`);
    expect(frameEnd(bytes)).toBe(bytes.length);
    expect(frameEnd(bytes.subarray(0, bytes.length - 1))).toBe(-1);
  });

  it('stops at the first frame of a pipeline and honours an offset', () => {
    const bytes = Buffer.from('+OK\r\n:1\r\n$1\r\nx\r\n');
    expect(frameEnd(bytes)).toBe(5);
    expect(frameEnd(bytes, 5)).toBe(9);
    expect(frameEnd(bytes, 9)).toBe(bytes.length);
  });

  it('rejects bytes that cannot be a frame', () => {
    expect(() => frameEnd(Buffer.from('?x\r\n'))).toThrow(/unknown RESP type byte 0x3f/);
    expect(() => frameEnd(Buffer.from('$abc\r\n'))).toThrow(/bad length/);
    expect(() => frameEnd(Buffer.from('.\r\n'))).toThrow(/stray '\.'/);
    expect(() => frameEnd(Buffer.from('$?\r\n:1\r\n'))).toThrow(/without ';'/);
  });
});

describe('splitFrames', () => {
  it('cuts a stream into frames and keeps the incomplete tail', () => {
    const { frames: cut, rest } = splitFrames(Buffer.from(`${frames.slice(0, 4).join('')}$3\r\nab`));
    expect(cut.map((frame) => frame.toString())).toEqual(frames.slice(0, 4));
    expect(rest.toString()).toBe('$3\r\nab');
  });
});

describe('readRequest', () => {
  it('reads a command and its end offset, or undefined until it is complete', () => {
    const bytes = encodePipeline([['SET', 'k', 'a\r\nb'], ['PING']]);
    const first = readRequest(bytes);
    expect(first?.args.map(String)).toEqual(['SET', 'k', 'a\r\nb']);
    expect(readRequest(bytes, first!.end)?.args.map(String)).toEqual(['PING']);
    for (let cut = 0; cut < first!.end; cut++) expect(readRequest(bytes.subarray(0, cut))).toBeUndefined();
  });

  it('rejects inline commands and non-bulk arguments', () => {
    expect(() => readRequest(Buffer.from('PING\r\n'))).toThrow(/does not start with/);
    expect(() => readRequest(Buffer.from('*1\r\n:1\r\n'))).toThrow(/not a bulk string/);
  });
});
