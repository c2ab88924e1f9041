// Deterministic reply corpora for the decoder benchmark, in RESP2 and RESP3 forms, with the figures
// (replies, leaves, string bytes, CRLFs) a correct decoder or scan must reproduce. Corpora are
// bytes: the sliced and concatenated strings that build them never reach a timed contender.
import { seededRandom } from '../test/kit/seeded-random.js';

/** A reply as the server means it; serialised to RESP2 or RESP3 below. */
export type ModelReply =
  | { kind: 'simple'; text: string }
  | { kind: 'error'; text: string }
  | { kind: 'int'; value: number }
  | { kind: 'bulk'; text: string }
  | { kind: 'null' }
  | { kind: 'array'; items: ModelReply[] }
  | { kind: 'map'; entries: [ModelReply, ModelReply][] };

/** What decoding a corpus must yield: the check that stops a broken contender from looking fast. */
export interface Tally {
  /** Top-level replies (error replies included). */
  replies: number;
  /** Scalars, nulls and errors, at any depth; a map contributes its keys and its values. */
  leaves: number;
  /** Bytes of simple and bulk string payloads (the corpora are ASCII, so characters = bytes). */
  stringBytes: number;
}

export interface Corpus {
  name: string;
  /** The same replies as a RESP3 server sends them (`_` nulls, `%` maps), cut into socket-sized chunks. */
  resp3: Buffer[];
  /** RESP2 forms (`$-1` nulls, maps as flat arrays), for RESP2-only parsers. */
  resp2: Buffer[];
  resp3Bytes: number;
  resp2Bytes: number;
  /** CRLF pairs in the RESP3 bytes: what the `indexOf` floor must count. */
  resp3Lines: number;
  expected: Tally;
}

/** What a socket hands to a `data` listener at most (the default highWaterMark of a net.Socket). */
export const SOCKET_CHUNK_BYTES = 64 * 1024;

/** How one corpus is made, from its own seeded random source. */
interface CorpusRecipe {
  name: string;
  /** The longest string payload, so the text pool can serve it. */
  longestText: number;
  replies(tools: RecipeTools): ModelReply[];
}

interface RecipeTools {
  /** Printable ASCII of this length, cut from a per-corpus pool. */
  text(length: number): string;
  between(low: number, high: number): number;
  random(): number;
}

const RECIPES: readonly CorpusRecipe[] = [
  {
    name: 'mixed small replies',
    longestText: 64,
    replies: (tools) => mixedSmall(20_000, tools),
  },
  {
    name: '1 KiB bulks',
    longestText: 1024,
    replies: ({ text }) => repeat(1024, () => bulk(text(1024))),
  },
  {
    name: '1 MiB bulks',
    longestText: 1024 * 1024,
    replies: ({ text }) => repeat(8, () => bulk(text(1024 * 1024))),
  },
  {
    name: 'LRANGE 1000 items',
    longestText: 24,
    replies: ({ text, between }) => repeat(16, () => array(repeat(1000, () => bulk(text(between(8, 24)))))),
  },
  {
    name: 'HGETALL 20 fields (map)',
    longestText: 32,
    replies: ({ text, between }) =>
      repeat(500, () => ({
        kind: 'map',
        entries: repeat(20, (i): [ModelReply, ModelReply] => [
          bulk(`field:${i}`),
          bulk(i % 4 === 0 ? String(between(0, 1_000_000)) : text(between(4, 32))),
        ]),
      })),
  },
];

/** The corpora the decode suite measures, in table order. */
export const CORPUS_NAMES: readonly string[] = RECIPES.map((recipe) => recipe.name);

/**
 * Builds one corpus. Each has its own seed, so a worker process that measures one corpus builds
 * only that one and gets the same bytes as every other process.
 */
export function buildCorpus(name: string): Corpus {
  const index = RECIPES.findIndex((recipe) => recipe.name === name);
  const recipe = RECIPES[index];
  if (recipe === undefined) throw new Error(`no corpus named ${name}; there are ${CORPUS_NAMES.join(', ')}`);
  // A fixed seed: the same corpus on every run, machine and worker process.
  const generator = seededRandom(0x5eed + index);
  const random = (): number => generator.next();
  const pool = asciiPool(random, 2 * recipe.longestText + 4096);
  const text = (length: number): string => {
    const start = Math.floor(random() * (pool.length - length));
    return pool.slice(start, start + length);
  };
  const between = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1));
  return makeCorpus(name, recipe.replies({ text, between, random }));
}

/** Every corpus, for tests. */
export function buildCorpora(): Corpus[] {
  return CORPUS_NAMES.map(buildCorpus);
}

/** The kind of stream a pipelined GET/SET/INCR workload reads back. */
function mixedSmall(count: number, { text, between, random }: RecipeTools): ModelReply[] {
  const errors = [
    'WRONGTYPE Operation against a key holding the wrong kind of value',
    'ERR value is not an integer or out of range',
  ];
  return repeat(count, (): ModelReply => {
    const roll = random();
    if (roll < 0.35) return { kind: 'simple', text: 'OK' }; // SET
    if (roll < 0.65) return bulk(text(between(8, 64))); // GET hit
    if (roll < 0.73) return { kind: 'null' }; // GET miss
    if (roll < 0.88) return { kind: 'int', value: between(0, 10_000_000) }; // INCR
    if (roll < 0.9) return { kind: 'error', text: errors[between(0, 1)]! };
    return array(repeat(3, () => (random() < 0.2 ? { kind: 'null' } : bulk(text(between(8, 32)))))); // MGET
  });
}

function makeCorpus(name: string, replies: ModelReply[]): Corpus {
  const resp3 = new Serialiser(3);
  const resp2 = new Serialiser(2);
  const expected: Tally = { replies: replies.length, leaves: 0, stringBytes: 0 };
  for (const reply of replies) {
    resp3.write(reply);
    resp2.write(reply);
    tallyModel(reply, expected);
  }
  const resp3Bytes = resp3.finish();
  const resp2Bytes = resp2.finish();
  return {
    name,
    resp3: splitIntoChunks(resp3Bytes, SOCKET_CHUNK_BYTES),
    resp2: splitIntoChunks(resp2Bytes, SOCKET_CHUNK_BYTES),
    resp3Bytes: resp3Bytes.length,
    resp2Bytes: resp2Bytes.length,
    resp3Lines: resp3.lines,
    expected,
  };
}

/**
 * Cuts `bytes` into copies of at most `size` bytes, each in memory of its own, the way consecutive
 * `data` events deliver them. Views of one buffer would let a decoder see a payload that crosses
 * chunks as one contiguous range and skip the copy that socket data always needs.
 */
export function splitIntoChunks(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) {
    const end = Math.min(offset + size, bytes.length);
    // allocUnsafeSlow: never a slice of Buffer's shared pool, where two small chunks could be adjacent.
    const chunk = Buffer.allocUnsafeSlow(end - offset);
    bytes.copy(chunk, 0, offset, end);
    chunks.push(chunk);
  }
  return chunks;
}

/** Writes model replies as RESP text; payloads contain no CR or LF, so every CRLF ends a token. */
class Serialiser {
  lines = 0;
  private readonly parts: string[] = [];

  constructor(private readonly protocol: 2 | 3) {}

  write(reply: ModelReply): void {
    switch (reply.kind) {
      case 'simple':
        this.line(`+${reply.text}`);
        break;
      case 'error':
        this.line(`-${reply.text}`);
        break;
      case 'int':
        this.line(`:${reply.value}`);
        break;
      case 'bulk':
        this.line(`$${reply.text.length}`);
        this.line(reply.text);
        break;
      case 'null':
        this.line(this.protocol === 3 ? '_' : '$-1');
        break;
      case 'array':
        this.line(`*${reply.items.length}`);
        for (const item of reply.items) this.write(item);
        break;
      case 'map':
        // RESP2 has no map type: HGETALL and friends answer with a flat array of keys and values.
        this.line(this.protocol === 3 ? `%${reply.entries.length}` : `*${reply.entries.length * 2}`);
        for (const [key, value] of reply.entries) {
          this.write(key);
          this.write(value);
        }
    }
  }

  finish(): Buffer {
    return Buffer.from(this.parts.join(''), 'latin1');
  }

  private line(text: string): void {
    this.parts.push(text, '\r\n');
    this.lines++;
  }
}

function tallyModel(reply: ModelReply, tally: Tally): void {
  switch (reply.kind) {
    case 'simple':
    case 'bulk':
      tally.leaves++;
      tally.stringBytes += reply.text.length;
      return;
    case 'array':
      for (const item of reply.items) tallyModel(item, tally);
      return;
    case 'map':
      for (const [key, value] of reply.entries) {
        tallyModel(key, tally);
        tallyModel(value, tally);
      }
      return;
    default:
      tally.leaves++;
  }
}

/**
 * Adds one decoded reply to `tally`, whatever shape the decoder chose for it (string or Buffer,
 * Map or plain object or flat array for a RESP3 map, any Error subclass for an error reply).
 */
export function tallyDecoded(value: unknown, tally: Tally): void {
  tally.replies++;
  tallyValue(value, tally);
}

function tallyValue(value: unknown, tally: Tally): void {
  if (typeof value === 'string') {
    tally.leaves++;
    tally.stringBytes += value.length;
  } else if (value instanceof Uint8Array) {
    tally.leaves++;
    tally.stringBytes += value.byteLength;
  } else if (value === null || typeof value !== 'object' || value instanceof Error) {
    tally.leaves++;
  } else if (Array.isArray(value) || value instanceof Set) {
    for (const item of value) tallyValue(item, tally);
  } else if (value instanceof Map) {
    for (const [key, item] of value) {
      tallyValue(key, tally);
      tallyValue(item, tally);
    }
  } else {
    for (const [key, item] of Object.entries(value)) {
      tallyValue(key, tally);
      tallyValue(item, tally);
    }
  }
}

function bulk(text: string): ModelReply {
  return { kind: 'bulk', text };
}

function array(items: ModelReply[]): ModelReply {
  return { kind: 'array', items };
}

function repeat<T>(count: number, make: (index: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

/** Printable ASCII without CR/LF, so payload bytes never look like line ends. */
function asciiPool(random: () => number, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.,; ';
  const codes = new Uint8Array(length);
  for (let i = 0; i < length; i++) codes[i] = alphabet.charCodeAt(Math.floor(random() * alphabet.length));
  return Buffer.from(codes).toString('latin1');
}
