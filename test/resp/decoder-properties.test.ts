// Property tests of RespDecoder: arbitrary RESP3 streams written by the reference serializer decode to
// the modelled values in any chunking; garbage either decodes or throws RespireProtocolError.
// A failure prints fast-check's seed and path; replay every property with SEED=<seed>.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RespireProtocolError } from '../../src/errors.js';
import {
  asProtocolError,
  bytewise,
  cutAt,
  type DecoderSettings,
  describeEvents,
  feed,
  isRespValue,
  whole,
} from './feed.js';
import { type Bytes, expectedEvents, type Frame, type MapEntry, serialize } from './reference-serializer.js';

const seed = process.env.SEED === undefined ? undefined : Number(process.env.SEED);
function run<Ts>(property: fc.IProperty<Ts>, numRuns: number): void {
  fc.assert(property, seed === undefined ? { numRuns } : { numRuns, seed });
}

// Payloads: text (valid UTF-8 and, through lone surrogates, its replacement), raw bytes, CR/LF-heavy bytes.
const textBytes: fc.Arbitrary<Bytes> = fc.oneof(
  fc.string({ maxLength: 12 }).map((text) => Buffer.from(text)),
  fc.string({ unit: 'binary', maxLength: 6 }).map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 12 }),
);
const lineBytes = textBytes.map((bytes) => bytes.filter((byte) => byte !== 0x0d && byte !== 0x0a));
const blobBytes: fc.Arbitrary<Bytes> = fc.oneof(
  textBytes,
  fc
    .array(fc.constantFrom(0x0d, 0x0a, 0x24, 0x2a, 0x3a, 0x2e, 0x3b, 0x00, 0xff, 0x61), { maxLength: 12 })
    .map((list) => Uint8Array.from(list)),
);
const errorBytes = fc.oneof(
  fc
    .tuple(fc.constantFrom('ERR', 'WRONGTYPE', 'MOVED', 'NOPERM'), lineBytes)
    .map(([code, rest]) => Buffer.concat([Buffer.from(`${code} `), rest])),
  lineBytes,
);

const int64 = fc.oneof(
  fc.integer().map(BigInt),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.constantFrom(
    0n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    -(2n ** 53n) - 1n,
    -(2n ** 63n),
    2n ** 63n - 1n,
  ),
);

/** Every double spelling the contract accepts: JavaScript's, exponent forms, signs, inf/nan variants. */
const doubleText = fc.oneof(
  fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.nat(4)).map(([value, style]) => {
    if (style === 1) return value.toExponential();
    if (style === 2) return value.toExponential().toUpperCase();
    if (style === 3) return value.toPrecision(17);
    const text = Object.is(value, -0) ? '-0' : String(value);
    return style === 4 && !text.startsWith('-') ? `+${text}` : text;
  }),
  fc.constantFrom('inf', '-inf', '+inf', 'INF', '-Inf', 'nan', '-nan', 'NAN', 'NaN', 'nan(123)', '-0', '10'),
);

const leaf: fc.Arbitrary<Frame> = fc.oneof(
  lineBytes.map((text): Frame => ({ kind: 'simple', text })),
  blobBytes.map((bytes): Frame => ({ kind: 'bulk', bytes })),
  fc
    .tuple(fc.constantFrom('txt', 'mkd'), blobBytes)
    .map(([format, bytes]): Frame => ({ kind: 'verbatim', format, bytes })),
  fc
    .array(
      blobBytes.filter((bytes) => bytes.length > 0),
      { maxLength: 4 },
    )
    .map((chunks): Frame => ({ kind: 'streamedString', chunks })),
  errorBytes.map((text): Frame => ({ kind: 'simpleError', text })),
  blobBytes.map((bytes): Frame => ({ kind: 'blobError', bytes })),
  fc.tuple(int64, fc.boolean()).map(([value, plusSign]): Frame => ({ kind: 'integer', value, plusSign })),
  doubleText.map((text): Frame => ({ kind: 'double', text })),
  fc
    .tuple(fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }), fc.boolean())
    .map(([value, plusSign]): Frame => ({ kind: 'bigNumber', value, plusSign })),
  fc.boolean().map((value): Frame => ({ kind: 'boolean', value })),
  fc.constantFrom('_', '$-1', '*-1').map((form): Frame => ({ kind: 'null', form })),
);

const attributes = fc.array(fc.tuple(leaf, leaf), { minLength: 1, maxLength: 2 });

const { frame } = fc.letrec<{ frame: Frame }>((tie) => ({
  frame: fc.oneof(
    { maxDepth: 5, depthSize: 'small' },
    leaf,
    fc
      .tuple(fc.constantFrom('array', 'set'), fc.array(tie('frame'), { maxLength: 4 }), fc.boolean())
      .map(([kind, items, streamed]): Frame => ({ kind, items, streamed })),
    fc
      .tuple(fc.array(fc.tuple(tie('frame'), tie('frame')), { maxLength: 3 }), fc.boolean())
      .map(([entries, streamed]): Frame => ({ kind: 'map', entries, streamed })),
    fc
      .tuple(attributes, tie('frame'))
      .map(([pairs, value]): Frame => ({ kind: 'attributed', attributes: pairs, value })),
  ),
}));

const pushFrame: fc.Arbitrary<Frame> = fc
  .tuple(
    fc.constantFrom('message', 'invalidate', 'subscribe', 'MOVING'),
    fc.array(frame, { maxLength: 3 }),
    fc.option(attributes, { nil: undefined }),
  )
  .map(([name, rest, pairs]) => {
    const push: Frame = {
      kind: 'push',
      items: [{ kind: 'bulk', bytes: Buffer.from(name) }, ...rest],
      streamed: false,
    };
    return pairs === undefined ? push : { kind: 'attributed', attributes: pairs, value: push };
  });

/** Single-element aggregates nested hundreds deep, of every kind, around one leaf. */
const deepChain: fc.Arbitrary<Frame> = fc
  .tuple(
    fc.array(fc.constantFrom('array', 'set', 'mapKey', 'mapValue', 'streamedArray', 'attributed'), {
      minLength: 50,
      maxLength: 400,
      size: 'max',
    }),
    leaf,
  )
  .map(([levels, inner]) =>
    levels.reduce<Frame>((item, level) => {
      const unit: Frame = { kind: 'null', form: '_' };
      if (level === 'mapKey') return { kind: 'map', entries: [[item, unit]], streamed: false };
      if (level === 'mapValue') return { kind: 'map', entries: [[unit, item]], streamed: true };
      if (level === 'attributed')
        return { kind: 'attributed', attributes: [[unit, unit]] as MapEntry[], value: item };
      if (level === 'streamedArray') return { kind: 'array', items: [item], streamed: true };
      return { kind: level, items: [item], streamed: false };
    }, inner),
  );

/** Top-level streams: replies with pushes interleaved anywhere. */
const stream = fc.array(fc.oneof({ weight: 4, arbitrary: frame }, { weight: 1, arbitrary: pushFrame }), {
  maxLength: 6,
});

type Chunker = (bytes: Uint8Array) => Uint8Array[];
const chunking: fc.Arbitrary<Chunker> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Chunker>(bytewise) },
  { weight: 1, arbitrary: fc.constant<Chunker>(whole) },
  {
    weight: 4,
    arbitrary: fc.array(fc.nat(), { maxLength: 24 }).map(
      (cuts): Chunker =>
        (bytes) =>
          cutAt(bytes, cuts),
    ),
  },
);

interface OutputMode {
  readonly returnBuffers: boolean;
  readonly attributeHook: boolean;
}
const outputMode: fc.Arbitrary<OutputMode> = fc.record({
  returnBuffers: fc.boolean(),
  attributeHook: fc.boolean(),
});

function expectStreamDecodes(frames: readonly Frame[], chunker: Chunker, mode: OutputMode): void {
  const outcome = feed(chunker(serialize(frames)), mode);
  expect(outcome.error).toBeUndefined();
  expect(describeEvents(outcome.events)).toEqual(describeEvents(expectedEvents(frames, mode)));
}

describe('RespDecoder properties: valid streams', () => {
  it('decodes arbitrary RESP3 streams to the modelled values, in order, in any chunking', () => {
    run(fc.property(stream, chunking, outputMode, expectStreamDecodes), 2500);
  });

  it('decodes nesting hundreds of levels deep', () => {
    run(
      fc.property(deepChain, chunking, outputMode, (chain, chunker, mode) =>
        expectStreamDecodes([chain], chunker, mode),
      ),
      300,
    );
  });

  it('delivers a prefix of the events, and never throws, when a valid stream is truncated', () => {
    const property = fc.property(stream, fc.nat(), chunking, outputMode, (frames, cut, chunker, mode) => {
      const input = serialize(frames);
      const outcome = feed(chunker(input.subarray(0, cut % (input.length + 1))), mode);
      expect(outcome.error).toBeUndefined();
      const expected = describeEvents(expectedEvents(frames, mode));
      expect(describeEvents(outcome.events)).toEqual(expected.slice(0, outcome.events.length));
    });
    run(property, 1000);
  });
});

// Garbage: whatever happens, only RespireProtocolError escapes, at an offset inside the stream, the
// failure is sticky, and the chunking does not change what is delivered. A decoder may reject a bad
// line as soon as it sees the bad byte or only once the line's CRLF arrives, so when one chunking has
// thrown and another has not yet, ending the pending line must make the other throw too.

const limits: fc.Arbitrary<DecoderSettings> = fc.oneof(
  fc.constant({}),
  fc.constant({ maxNestingDepth: 3, maxBulkLength: 16, maxAggregateLength: 4 }),
);

function expectRobust(input: Uint8Array, chunker: Chunker, settings: DecoderSettings): void {
  const outcome = feed(chunker(input), settings);
  for (const event of outcome.events) expect(isRespValue(event.value)).toBe(true);
  if (outcome.error !== undefined) {
    const error = asProtocolError(outcome.error);
    expect(Number.isInteger(error.offset)).toBe(true);
    expect(error.offset).toBeGreaterThanOrEqual(0);
    expect(error.offset).toBeLessThan(input.length);
    expect(() => outcome.decoder.write(Buffer.from('+OK\r\n'))).toThrow(RespireProtocolError);
  }
  const reference = feed(whole(input), settings);
  expect(describeEvents(outcome.events)).toEqual(describeEvents(reference.events));
  if ((outcome.error === undefined) !== (reference.error === undefined)) {
    const pending = outcome.error === undefined ? outcome : reference;
    expect(() => pending.decoder.write(Buffer.from('\r\n'))).toThrow(RespireProtocolError);
  }
}

const respAlphabet = [
  ...'$*%~|>+-:,#_(!=;.?',
  ...[
    '0',
    '1',
    '2',
    '3',
    '-1',
    '?',
    '\r\n',
    '\r\n',
    '\r\n',
    '\r',
    '\n',
    'a',
    't',
    'f',
    'inf',
    'nan',
    'txt:',
    'e',
  ],
];

type Mutation = { readonly at: number; readonly op: 'replace' | 'insert' | 'delete'; readonly byte: number };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('replace', 'insert', 'delete'),
  byte: fc.oneof(
    fc.integer({ min: 0, max: 255 }),
    fc.constantFrom(...[...'$*%~|>+-:,#_(!=;.?0123\r\n'].map((c) => c.charCodeAt(0))),
  ),
});

function mutate(input: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  const bytes = [...input];
  for (const { at, op, byte } of mutations) {
    const index = at % (bytes.length + 1);
    if (op === 'insert') bytes.splice(index, 0, byte);
    else if (op === 'delete') bytes.splice(index, 1);
    else if (index < bytes.length) bytes[index] = byte;
  }
  return Uint8Array.from(bytes);
}

describe('RespDecoder properties: garbage', () => {
  it('random bytes decode or throw RespireProtocolError', () => {
    run(fc.property(fc.uint8Array({ maxLength: 200 }), chunking, limits, expectRobust), 2500);
  });

  it('random sequences of RESP tokens decode or throw RespireProtocolError', () => {
    const tokens = fc
      .array(fc.constantFrom(...respAlphabet), { maxLength: 60 })
      .map((list) => Buffer.from(list.join('')));
    run(fc.property(tokens, chunking, limits, expectRobust), 2500);
  });

  it('valid streams with random mutations and truncations decode or throw RespireProtocolError', () => {
    const property = fc.property(
      stream,
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      fc.option(fc.nat(), { nil: undefined }),
      chunking,
      limits,
      (frames, mutations, cut, chunker, settings) => {
        const mutated = mutate(serialize(frames), mutations);
        const input = cut === undefined ? mutated : mutated.subarray(0, cut % (mutated.length + 1));
        expectRobust(input, chunker, settings);
      },
    );
    run(property, 2500);
  });
});
