// Benchmark suite `resp-decode`: Respire's RespDecoder against redis-parser, the @redis/client RESP3
// decoder and an `indexOf(CRLF)` floor, on the corpora of bench/corpora.ts in 64 KiB chunks. Each
// contender decodes in a process of its own (bench/isolation.ts).
import { createRequire } from 'node:module';
import { RespDecoder } from '../../src/resp/index.js';
import { buildCorpus, CORPUS_NAMES, type Corpus, type Tally, tallyDecoded } from '../corpora.js';
import { blackhole, syncPasses } from '../measure.js';
import type { CasePlan, IsolatedSuite, PreparedContender } from '../suite.js';

const require = createRequire(import.meta.url);

/** The part of redis-parser 3's constructor options we use (it ships no types). */
interface RedisParserOptions {
  returnReply(reply: unknown): void;
  returnError(error: Error): void;
  returnFatalError(error: Error): void;
  returnBuffers: boolean;
}
type RedisParserConstructor = new (options: RedisParserOptions) => { execute(chunk: Buffer): void };

/** The part of @redis/client's `Decoder` we use; node-redis builds it the same way in commands-queue. */
interface NodeRedisDecoderOptions {
  onReply(reply: unknown): void;
  onErrorReply(error: Error): void;
  onPush(push: unknown[]): void;
  getTypeMapping(): Record<number, unknown>;
}
type NodeRedisDecoderConstructor = new (options: NodeRedisDecoderOptions) => { write(chunk: Buffer): void };

/** A decoder under test: builds a fresh instance that hands each top-level reply to `onReply`. */
interface DecoderEntry {
  /** RESP2-only parsers get the RESP2 form of each corpus. */
  protocol: 2 | 3;
  create(onReply: (reply: unknown) => void, returnBuffers: boolean): (chunk: Buffer) => void;
}

/** Node-redis RESP type bytes (decoder.js `RESP_TYPES`) for its type mapping. */
const NODE_REDIS_BLOB_STRING = 36;
const NODE_REDIS_MAP = 37;

/** Each decoder by contender name; a peer is required only inside its own worker. */
const DECODERS: Record<string, () => DecoderEntry> = {
  respire: () => ({
    protocol: 3,
    create(onReply, returnBuffers) {
      const decoder = new RespDecoder({ onReply, onPush: unexpectedPush, returnBuffers });
      return (chunk) => decoder.write(chunk);
    },
  }),
  'redis-parser': () => {
    const RedisParser = require('redis-parser') as RedisParserConstructor;
    return {
      protocol: 2,
      create(onReply, returnBuffers) {
        const parser = new RedisParser({
          returnReply: onReply,
          returnError: onReply,
          returnFatalError: rethrow,
          returnBuffers,
        });
        return (chunk) => parser.execute(chunk);
      },
    };
  },
  '@redis/client': () => {
    const { Decoder } = require('@redis/client/dist/lib/RESP/decoder.js') as {
      Decoder: NodeRedisDecoderConstructor;
    };
    return {
      protocol: 3,
      create(onReply, returnBuffers) {
        // Maps as Map, like Respire, so both build the same shape; node-redis's own default is a
        // plain object, which costs it about the same.
        const typeMapping: Record<number, unknown> = { [NODE_REDIS_MAP]: Map };
        if (returnBuffers) typeMapping[NODE_REDIS_BLOB_STRING] = Buffer;
        const decoder = new Decoder({
          onReply,
          onErrorReply: onReply,
          onPush: unexpectedPush,
          getTypeMapping: () => typeMapping,
        });
        return (chunk) => decoder.write(chunk);
      },
    };
  },
};

/** Corpora this worker has built: the largest serves two cases. */
const built = new Map<string, Corpus>();

const FLOOR = 'indexOf floor';
/** The floor copies nothing, so the largest corpus is also timed with no decoder building a string. */
const AS_BUFFERS = '1 MiB bulks as Buffers';

export const respDecodeSuite: IsolatedSuite = {
  name: 'resp-decode',
  plan(): CasePlan[] {
    const contenders = [...Object.keys(DECODERS), FLOOR];
    return [...CORPUS_NAMES, AS_BUFFERS].map((name) => ({ name, contenders }));
  },
  async prepare(caseName, contender) {
    const returnBuffers = caseName === AS_BUFFERS;
    const name = returnBuffers ? '1 MiB bulks' : caseName;
    let corpus = built.get(name);
    if (corpus === undefined) built.set(name, (corpus = buildCorpus(name)));
    if (contender === FLOOR) return prepareFloor(corpus);
    const make = DECODERS[contender];
    if (make === undefined) throw new Error(`resp-decode has no contender ${contender}`);
    return prepareDecoder(contender, make(), corpus, returnBuffers);
  },
};

export default respDecodeSuite;

function units(corpus: Corpus, protocol: 2 | 3): PreparedContender['units'] {
  return [
    { unit: 'replies/s', perPass: corpus.expected.replies },
    { unit: 'MB/s', perPass: (protocol === 2 ? corpus.resp2Bytes : corpus.resp3Bytes) / 1e6 },
  ];
}

function prepareDecoder(
  client: string,
  entry: DecoderEntry,
  corpus: Corpus,
  returnBuffers: boolean,
): PreparedContender {
  verifyDecoder(client, entry, corpus, returnBuffers);
  let replies = 0;
  let flattened = 0;
  const feed = entry.create((reply) => {
    blackhole.value = reply;
    // redis-parser returns a bulk that spanned chunks as a rope of per-chunk strings (`+=`),
    // deferring the copy to the first read. Reading a character flattens it, as any use by the
    // application would, so that copy is timed too; for a flat string it costs nothing.
    if (typeof reply === 'string' && reply.length > 0) flattened += reply.charCodeAt(0);
    replies++;
  }, returnBuffers);
  const chunks = entry.protocol === 3 ? corpus.resp3 : corpus.resp2;
  return {
    runFor: syncPasses(() => {
      for (let i = 0; i < chunks.length; i++) feed(chunks[i]!);
    }),
    units: units(corpus, entry.protocol),
    check(passes) {
      blackhole.value = flattened;
      expectCount(client, 'replies', replies, passes * corpus.expected.replies);
    },
  };
}

function prepareFloor(corpus: Corpus): PreparedContender {
  const linesPerPass = countLines(corpus.resp3);
  if (corpus.resp3Lines - linesPerPass > corpus.resp3.length) {
    throw new Error(`indexOf floor found ${linesPerPass} of ${corpus.resp3Lines} CRLFs in ${corpus.name}`);
  }
  let lines = 0;
  return {
    runFor: syncPasses(() => {
      lines += countLines(corpus.resp3);
    }),
    units: units(corpus, 3),
    check: (passes) => expectCount(FLOOR, 'CRLFs', lines, passes * linesPerPass),
  };
}

/** One untimed pass with a full tally: a decoder that skips or mangles replies is refused. */
function verifyDecoder(client: string, entry: DecoderEntry, corpus: Corpus, returnBuffers: boolean): void {
  const tally: Tally = { replies: 0, leaves: 0, stringBytes: 0 };
  const feed = entry.create((reply) => tallyDecoded(reply, tally), returnBuffers);
  for (const chunk of entry.protocol === 3 ? corpus.resp3 : corpus.resp2) feed(chunk);
  const { expected } = corpus;
  if (
    tally.replies !== expected.replies ||
    tally.leaves !== expected.leaves ||
    tally.stringBytes !== expected.stringBytes
  ) {
    throw new Error(
      `${client} decoded ${corpus.name} wrongly: ${JSON.stringify(tally)}, expected ${JSON.stringify(expected)}`,
    );
  }
}

const CRLF = Buffer.from('\r\n');

/** The least work any RESP parser does: find every line end. A CRLF split across chunks is missed. */
function countLines(chunks: readonly Buffer[]): number {
  let lines = 0;
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    let at = chunk.indexOf(CRLF);
    while (at !== -1) {
      lines++;
      at = chunk.indexOf(CRLF, at + 2);
    }
  }
  return lines;
}

function expectCount(client: string, what: string, actual: number, expected: number): void {
  if (actual !== expected) {
    throw new Error(`${client} counted ${actual} ${what} in the timed passes, expected ${expected}`);
  }
}

function unexpectedPush(): void {
  throw new Error('the corpora hold no push frames');
}

function rethrow(error: Error): never {
  throw error;
}
