// Benchmark suite `resp-decode`: Respire's RespDecoder against redis-parser, the @redis/client RESP3
// decoder and an `indexOf(CRLF)` floor, on the corpora of bench/corpora.ts in 64 KiB chunks.
import { createRequire } from 'node:module';
import { RespDecoder } from '../../src/resp/index.js';
import { buildCorpora, type Corpus, type Tally, tallyDecoded } from '../corpora.js';
import { blackhole, type Contender, measureInterleaved, measureOptions } from '../measure.js';
import type { BenchContext, BenchResult, BenchSuite } from '../suite.js';

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
  client: string;
  /** RESP2-only parsers get the RESP2 form of each corpus. */
  protocol: 2 | 3;
  create(onReply: (reply: unknown) => void, returnBuffers: boolean): (chunk: Buffer) => void;
}

/** Node-redis RESP type bytes (decoder.js `RESP_TYPES`) for its type mapping. */
const NODE_REDIS_BLOB_STRING = 36;
const NODE_REDIS_MAP = 37;

function decoderEntries(): DecoderEntry[] {
  const RedisParser = require('redis-parser') as RedisParserConstructor;
  const { Decoder: NodeRedisDecoder } = require('@redis/client/dist/lib/RESP/decoder.js') as {
    Decoder: NodeRedisDecoderConstructor;
  };
  return [
    {
      client: 'respire',
      protocol: 3,
      create(onReply, returnBuffers) {
        const decoder = new RespDecoder({ onReply, onPush: unexpectedPush, returnBuffers });
        return (chunk) => decoder.write(chunk);
      },
    },
    {
      client: 'redis-parser',
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
    },
    {
      client: '@redis/client',
      protocol: 3,
      create(onReply, returnBuffers) {
        // Maps as Map, like Respire, so both build the same shape; node-redis's own default is a
        // plain object, which costs it about the same.
        const typeMapping: Record<number, unknown> = { [NODE_REDIS_MAP]: Map };
        if (returnBuffers) typeMapping[NODE_REDIS_BLOB_STRING] = Buffer;
        const decoder = new NodeRedisDecoder({
          onReply,
          onErrorReply: onReply,
          onPush: unexpectedPush,
          getTypeMapping: () => typeMapping,
        });
        return (chunk) => decoder.write(chunk);
      },
    },
  ];
}

interface DecodeCase {
  name: string;
  corpus: Corpus;
  returnBuffers: boolean;
}

export const respDecodeSuite: BenchSuite = {
  name: 'resp-decode',
  async run(context: BenchContext): Promise<BenchResult[]> {
    const corpora = buildCorpora();
    const cases: DecodeCase[] = corpora.map((corpus) => ({
      name: corpus.name,
      corpus,
      returnBuffers: false,
    }));
    const largest = corpora.find((corpus) => corpus.name === '1 MiB bulks');
    if (largest !== undefined) {
      // The floor copies nothing, so also time the case where no decoder has to build a string.
      cases.push({ name: '1 MiB bulks as Buffers', corpus: largest, returnBuffers: true });
    }
    const entries = decoderEntries();
    const results: BenchResult[] = [];
    for (const decodeCase of cases) {
      context.log(`resp-decode: ${decodeCase.name}`);
      results.push(...measureCase(decodeCase, entries, context.quick));
    }
    return results;
  },
};

export default respDecodeSuite;

function measureCase(decodeCase: DecodeCase, entries: DecoderEntry[], quick: boolean): BenchResult[] {
  const { corpus, returnBuffers } = decodeCase;
  const counters = entries.map(() => 0);
  let flattened = 0;
  const contenders: Contender[] = entries.map((entry, index) => {
    verifyDecoder(entry, corpus, returnBuffers);
    const feed = entry.create((reply) => {
      blackhole.value = reply;
      // redis-parser returns a bulk that spanned chunks as a rope of per-chunk strings (`+=`),
      // deferring the copy to the first read. Reading a character flattens it, as any use by the
      // application would, so that copy is timed too; for a flat string it costs nothing.
      if (typeof reply === 'string' && reply.length > 0) flattened += reply.charCodeAt(0);
      counters[index]!++;
    }, returnBuffers);
    const chunks = entry.protocol === 3 ? corpus.resp3 : corpus.resp2;
    return {
      name: entry.client,
      pass() {
        for (let i = 0; i < chunks.length; i++) feed(chunks[i]!);
      },
    };
  });
  const floorLinesPerPass = countLines(corpus.resp3);
  if (corpus.resp3Lines - floorLinesPerPass > corpus.resp3.length) {
    throw new Error(
      `indexOf floor found ${floorLinesPerPass} of ${corpus.resp3Lines} CRLFs in ${corpus.name}`,
    );
  }
  let floorLines = 0;
  contenders.push({
    name: 'indexOf floor',
    pass() {
      floorLines += countLines(corpus.resp3);
    },
  });

  const measurements = measureInterleaved(contenders, measureOptions(quick));
  blackhole.value = flattened;
  const results: BenchResult[] = [];
  measurements.forEach((measurement, index) => {
    const entry = entries[index];
    if (entry === undefined) {
      expectCount('indexOf floor', 'CRLFs', floorLines, measurement.passes * floorLinesPerPass);
    } else {
      expectCount(entry.client, 'replies', counters[index]!, measurement.passes * corpus.expected.replies);
    }
    const bytes = entry?.protocol === 2 ? corpus.resp2Bytes : corpus.resp3Bytes;
    const row = { suite: 'resp-decode', case: decodeCase.name, client: measurement.name };
    results.push(
      { ...row, value: round(measurement.passesPerSecond * corpus.expected.replies), unit: 'replies/s' },
      { ...row, value: round((measurement.passesPerSecond * bytes) / 1e6), unit: 'MB/s' },
    );
  });
  return results;
}

/** One untimed pass with a full tally: a decoder that skips or mangles replies is refused. */
function verifyDecoder(entry: DecoderEntry, corpus: Corpus, returnBuffers: boolean): void {
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
      `${entry.client} decoded ${corpus.name} wrongly: ${JSON.stringify(tally)}, expected ${JSON.stringify(expected)}`,
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

/** Four significant digits: the machine's noise is far larger than that. */
function round(value: number): number {
  return Number(value.toPrecision(4));
}
