// Benchmark suite `resp-encode`: commands/s turning an argument list into the bytes handed to
// `socket.write`, for Respire, node-redis (@redis/client) and ioredis, each in a process of its own
// (bench/isolation.ts): loading ioredis alone slows every string read in its process.
import { createRequire } from 'node:module';
import { CommandEncoder, encodeCommand } from '../../src/resp/index.js';
import { flatString, flatten } from '../flat-strings.js';
import { blackhole, syncPasses } from '../measure.js';
import type { CasePlan, IsolatedSuite, PreparedContender } from '../suite.js';

const require = createRequire(import.meta.url);

type Argument = string | Buffer;

/** Commands a pipeline encodes between two socket writes, for the `CommandEncoder` contender. */
const PIPELINE_DEPTH = 16;
/** Commands of each shape (different keys), so no contender encodes one constant over and over. */
const COMMAND_VARIANTS = PIPELINE_DEPTH;
const EMPTY = Buffer.alloc(0);

/** What each encoder hands to the socket: one buffer, one string, or a list of either. */
type Writable = Buffer | Uint8Array | string | readonly (string | Uint8Array)[];

/** An encoder prepared for a case's commands: `encode(i)` encodes `commands[i]`. */
type Prepare = (commands: readonly Argument[][]) => (index: number) => Writable;

/** The part of ioredis's `Command` we use (its `bufferMode` is private in the typings). */
type IoredisCommandConstructor = new (
  name: string,
  args: Argument[],
) => { toWritable(socket: object): Writable };

function nodeRedisEncoder(): Prepare {
  const encode = (
    require('@redis/client/dist/lib/RESP/encoder.js') as {
      default: (args: readonly Argument[]) => readonly Argument[];
    }
  ).default;
  // Returns its chunks without joining them; node-redis writes them one by one (corked).
  return (commands) => (index) => encode(commands[index]!);
}

function ioredisEncoder(): Prepare {
  const { Command } = require('ioredis') as { Command: IoredisCommandConstructor };
  const socket = {};
  // Each Command is built once: its constructor is ioredis's command record and promise, which
  // Respire's figure does not include either. `toWritable` is the encoding, run per command.
  return (commands) => {
    const built = commands.map((args) => new Command(args[0] as string, args.slice(1)));
    return (index) => built[index]!.toWritable(socket);
  };
}

/**
 * The peers hand `socket.write` strings, which Node still has to encode as UTF-8 (and flatten,
 * for the ropes that `+=` builds) before they reach the kernel; Respire hands it finished bytes.
 * These rows do that remaining step in JavaScript, so the comparison of finished bytes is visible
 * next to the one the issue asks for (strings counted as done).
 */
function asBytes(peer: Prepare): Prepare {
  return (commands) => {
    const encode = peer(commands);
    return (index) => {
      const output = encode(index);
      if (typeof output === 'string') return Buffer.from(output);
      if (output instanceof Uint8Array) return output;
      return output.map((part) => (typeof part === 'string' ? Buffer.from(part) : part));
    };
  };
}

/** Each encoder by contender name; a peer is required only inside its own worker. */
const ENCODERS: Record<string, () => Prepare> = {
  respire: () => (commands) => (index) => encodeCommand(commands[index]!),
  'respire CommandEncoder': () => (commands) => {
    // A pipeline appends the commands of one tick and takes their bytes at once: a take is timed
    // once per PIPELINE_DEPTH commands. takeChunks() is what the pipeline writes (large Buffers
    // by reference, as a corked writev).
    const encoder = new CommandEncoder();
    return (index) => {
      encoder.encode(commands[index]!);
      return encoder.commandCount === PIPELINE_DEPTH ? encoder.takeChunks() : EMPTY;
    };
  },
  '@redis/client': nodeRedisEncoder,
  ioredis: ioredisEncoder,
  '@redis/client as bytes': () => asBytes(nodeRedisEncoder()),
  'ioredis as bytes': () => asBytes(ioredisEncoder()),
};

interface EncodeCase {
  name: string;
  /** COMMAND_VARIANTS commands of the same shape. */
  commands: Argument[][];
  /** Commands per timed pass: enough that reading the clock costs nothing by comparison. */
  batch: number;
}

/** The cases' commands; every string is flat (flat-strings.ts), as a string read off a socket is. */
function encodeCases(): EncodeCase[] {
  const keys = Array.from({ length: COMMAND_VARIANTS }, (_, i) => flatten(`user:session:${1000 + i}`));
  const kib = flatString(1024);
  const big = Buffer.alloc(100 * 1024, 'r');
  const fields = (i: number) =>
    Array.from({ length: 10 }, (_, f) => [flatten(`field${f}`), flatten(`value-${i}-${f}-abcdef`)]).flat();
  return [
    { name: 'GET small', commands: keys.map((key) => ['GET', key]), batch: 512 },
    {
      name: 'SET small',
      commands: keys.map((key, i) => ['SET', key, flatten(`value-${i}-0123456789`)]),
      batch: 512,
    },
    { name: 'SET 1 KiB', commands: keys.map((key) => ['SET', key, kib]), batch: 256 },
    { name: 'HSET 10 fields', commands: keys.map((key, i) => ['HSET', key, ...fields(i)]), batch: 256 },
    { name: 'SET 100 KiB Buffer', commands: keys.map((key) => ['SET', key, big]), batch: 32 },
  ];
}

export const respEncodeSuite: IsolatedSuite = {
  name: 'resp-encode',
  plan(): CasePlan[] {
    const contenders = Object.keys(ENCODERS);
    return encodeCases().map(({ name }) => ({ name, contenders }));
  },
  async prepare(caseName, contender): Promise<PreparedContender> {
    const encodeCase = encodeCases().find((candidate) => candidate.name === caseName);
    if (encodeCase === undefined) throw new Error(`resp-encode has no case ${caseName}`);
    const make = ENCODERS[contender];
    if (make === undefined) throw new Error(`resp-encode has no contender ${contender}`);
    const prepare = make();
    const { commands, batch } = encodeCase;
    verifyEncoding(contender, commands, prepare(commands));
    const encode = prepare(commands);
    return {
      runFor: syncPasses(() => {
        for (let i = 0; i < batch; i++) blackhole.value = encode(i % COMMAND_VARIANTS);
      }),
      units: [{ unit: 'commands/s', perPass: batch }],
    };
  },
};

export default respEncodeSuite;

/** A contender whose bytes differ from RESP arrays of bulk strings is refused before timing. */
function verifyEncoding(
  client: string,
  commands: readonly Argument[][],
  encode: (index: number) => Writable,
): void {
  const outputs = commands.map((_, index) => encode(index));
  const parts = outputs.flatMap((output) =>
    typeof output === 'string' || output instanceof Uint8Array ? [output] : output,
  );
  const actual = Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
  const expected = Buffer.concat(
    commands.flatMap((args) => [
      Buffer.from(`*${args.length}\r\n`),
      ...args.flatMap((arg) => [Buffer.from(`$${Buffer.byteLength(arg)}\r\n`), Buffer.from(arg), CRLF]),
    ]),
  );
  if (!actual.equals(expected)) {
    throw new Error(
      `${client} encoded ${commands.length} × ${String(commands[0]?.[0])} as ${actual.length} bytes that differ from the ${expected.length} expected`,
    );
  }
}

const CRLF = Buffer.from('\r\n');
