// The decode corpora: deterministic, RESP2 and RESP3 forms of the same replies, and expected
// figures that an independent parser reproduces (the suite refuses any contender that does not).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  buildCorpora,
  buildCorpus,
  CORPUS_NAMES,
  type Corpus,
  SOCKET_CHUNK_BYTES,
  type Tally,
  tallyDecoded,
} from '../../bench/corpora.js';

const require = createRequire(import.meta.url);
type Parser = new (options: {
  returnReply(reply: unknown): void;
  returnError(error: Error): void;
  returnFatalError(error: Error): void;
}) => { execute(chunk: Buffer): void };
const RedisParser = require('redis-parser') as Parser;

const corpora = buildCorpora();

function tallyWithRedisParser(chunks: readonly Buffer[]): Tally {
  const tally: Tally = { replies: 0, leaves: 0, stringBytes: 0 };
  const parser = new RedisParser({
    returnReply: (reply) => tallyDecoded(reply, tally),
    returnError: (error) => tallyDecoded(error, tally),
    returnFatalError: (error) => {
      throw error;
    },
  });
  for (const chunk of chunks) parser.execute(chunk);
  return tally;
}

function joined(chunks: readonly Buffer[]): Buffer {
  return Buffer.concat(chunks);
}

describe.each(corpora.map((corpus) => [corpus.name, corpus] as [string, Corpus]))(
  'corpus %s',
  (_, corpus) => {
    it('is cut into socket-sized chunks and sized as declared', () => {
      expect(corpus.resp3.every((chunk) => chunk.length <= SOCKET_CHUNK_BYTES)).toBe(true);
      expect(corpus.resp3.slice(0, -1).every((chunk) => chunk.length === SOCKET_CHUNK_BYTES)).toBe(true);
      expect(joined(corpus.resp3).length).toBe(corpus.resp3Bytes);
      expect(joined(corpus.resp2).length).toBe(corpus.resp2Bytes);
    });

    it('gives every chunk memory of its own, as socket reads do', () => {
      for (const chunks of [corpus.resp3, corpus.resp2]) {
        expect(new Set(chunks.map((chunk) => chunk.buffer)).size).toBe(chunks.length);
        expect(chunks.every((chunk) => chunk.byteOffset === 0)).toBe(true);
      }
    });

    it('has expected figures that redis-parser reproduces from the RESP2 form', () => {
      expect(corpus.expected.replies).toBeGreaterThan(0);
      expect(tallyWithRedisParser(corpus.resp2)).toEqual(corpus.expected);
    });

    it('counts every CRLF of the RESP3 form', () => {
      const bytes = joined(corpus.resp3);
      let lines = 0;
      for (let at = bytes.indexOf('\r\n'); at !== -1; at = bytes.indexOf('\r\n', at + 2)) lines++;
      expect(corpus.resp3Lines).toBe(lines);
    });
  },
);

describe('corpora', () => {
  it('are each built alone, as a worker builds only its own, with the bytes of a full build', () => {
    expect(CORPUS_NAMES).toEqual(corpora.map((corpus) => corpus.name));
    const last = corpora.at(-1)!;
    const alone = buildCorpus(last.name);
    expect(joined(alone.resp3).equals(joined(last.resp3))).toBe(true);
    expect(alone.expected).toEqual(last.expected);
    expect(() => buildCorpus('no such corpus')).toThrow(/no corpus named no such corpus; there are mixed/);
  });

  it('are the same bytes on every build', () => {
    const again = buildCorpora();
    expect(again.map((corpus) => corpus.name)).toEqual(corpora.map((corpus) => corpus.name));
    again.forEach((corpus, index) => {
      expect(joined(corpus.resp3).equals(joined(corpora[index]!.resp3))).toBe(true);
    });
  });

  it('use RESP3-only types in the RESP3 form and none in the RESP2 form', () => {
    const mixed = joined(corpora.find((corpus) => corpus.name === 'mixed small replies')!.resp3);
    const map = corpora.find((corpus) => corpus.name === 'HGETALL 20 fields (map)')!;
    expect(mixed.includes('\r\n_\r\n')).toBe(true);
    expect(joined(map.resp3).subarray(0, 5).toString()).toBe('%20\r\n');
    expect(joined(map.resp2).subarray(0, 5).toString()).toBe('*40\r\n');
    expect(joined(corpora[0]!.resp2).includes('\r\n_\r\n')).toBe(false);
  });
});

describe('tallyDecoded', () => {
  it('counts the same for every shape a decoder may give a map, and tells a short reply apart', () => {
    const shapes: unknown[] = [
      new Map<string, unknown>([
        ['a', 'xy'],
        ['b', Buffer.from('z')],
      ]),
      { a: 'xy', b: 'z' },
      ['a', 'xy', 'b', 'z'],
    ];
    const tallies = shapes.map((shape) => {
      const tally: Tally = { replies: 0, leaves: 0, stringBytes: 0 };
      tallyDecoded(shape, tally);
      return tally;
    });
    expect(tallies).toEqual(Array(3).fill({ replies: 1, leaves: 4, stringBytes: 5 }));
    const short: Tally = { replies: 0, leaves: 0, stringBytes: 0 };
    tallyDecoded(['a', 'xy', 'b'], short);
    expect(short).not.toEqual(tallies[0]);
  });
});
