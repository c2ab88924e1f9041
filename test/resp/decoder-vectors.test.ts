// Table-driven RespDecoder tests: every RESP2/RESP3 form of PROTOCOL.md §1.1 and every malformed
// case of the decoder contract, each fed whole, one byte per write and split at every offset.
import { describe, expect, it } from 'vitest';
import { RespireProtocolError, RespireServerError } from '../../src/errors.js';
import { RespDecoder } from '../../src/resp/decoder.js';
import type { RespValue } from '../../src/resp/types.js';
import {
  asProtocolError,
  bytewise,
  type DecodedEvent,
  type DecoderSettings,
  describeEvents,
  describeValue,
  feed,
  fixedChunks,
  paddedView,
  recordingDecoder,
  splitsEverywhere,
  whole,
} from './feed.js';

/** Bytes from text (UTF-8) and byte lists. */
function bytes(...parts: (string | readonly number[] | Uint8Array)[]): Buffer {
  return Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))),
  );
}

const reply = (value: RespValue): DecodedEvent => ({ kind: 'reply', value });
const push = (value: RespValue[]): DecodedEvent => ({ kind: 'push', value });
const attribute = (entries: [RespValue, RespValue][]): DecodedEvent => ({
  kind: 'attribute',
  value: new Map(entries),
});
const serverError = (message: string) => new RespireServerError(message);
const buffer = (text: string | readonly number[]) => bytes(text);

interface Vector {
  readonly name: string;
  readonly input: Uint8Array;
  readonly events: readonly DecodedEvent[];
  readonly settings?: DecoderSettings;
}

const vector = (
  name: string,
  input: string | Uint8Array,
  events: DecodedEvent[],
  settings?: DecoderSettings,
) => ({ name, input: typeof input === 'string' ? bytes(input) : input, events, settings }) satisfies Vector;
const one = (name: string, input: string | Uint8Array, value: RespValue, settings?: DecoderSettings) =>
  vector(name, input, [reply(value)], settings);
const binary = { returnBuffers: true } as const;

const twoPow53 = 2n ** 53n;
const crlfPayload = [0x61, 0x0d, 0x0a, 0x00, 0xff, 0x0d, 0x0a, 0x24, 0x31, 0x0d];

const validVectors: Vector[] = [
  // Simple strings and errors.
  one('simple string', '+OK\r\n', 'OK'),
  one('empty simple string', '+\r\n', ''),
  one('UTF-8 simple string', '+héllo wörld ✓\r\n', 'héllo wörld ✓'),
  one('simple string as Buffer', '+OK\r\n', buffer('OK'), binary),
  one('simple error', "-ERR unknown command 'FOO'\r\n", serverError("ERR unknown command 'FOO'")),
  one('simple error without message', '-ERR\r\n', serverError('ERR')),
  one('MOVED error', '-MOVED 3999 127.0.0.1:6381\r\n', serverError('MOVED 3999 127.0.0.1:6381')),
  one('error stays a string with returnBuffers', '-WRONGTYPE bad\r\n', serverError('WRONGTYPE bad'), binary),
  // Integers, with the safe-integer and 64-bit edges.
  one('zero', ':0\r\n', 0),
  one('integer', ':1000\r\n', 1000),
  one('negative integer', ':-1\r\n', -1),
  one('integer with plus sign', ':+5\r\n', 5),
  one('2^53-1 stays a number', `:${twoPow53 - 1n}\r\n`, Number.MAX_SAFE_INTEGER),
  one('-(2^53-1) stays a number', `:${1n - twoPow53}\r\n`, -Number.MAX_SAFE_INTEGER),
  one('2^53 becomes a bigint', `:${twoPow53}\r\n`, twoPow53),
  one('2^53+1 becomes a bigint', `:${twoPow53 + 1n}\r\n`, twoPow53 + 1n),
  one('-2^53 becomes a bigint', `:${-twoPow53}\r\n`, -twoPow53),
  one('-(2^53+1) becomes a bigint', `:${-twoPow53 - 1n}\r\n`, -twoPow53 - 1n),
  one('-2^63', ':-9223372036854775808\r\n', -(2n ** 63n)),
  one('2^63-1', ':9223372036854775807\r\n', 2n ** 63n - 1n),
  // Bulk strings (RESP2 and RESP3).
  one('bulk string', '$5\r\nhello\r\n', 'hello'),
  one('empty bulk string', '$0\r\n\r\n', ''),
  one('RESP2 null bulk', '$-1\r\n', null),
  one('bulk with CRLF and binary inside', bytes('$10\r\n', crlfPayload, '\r\n'), buffer(crlfPayload), binary),
  one('bulk with CRLF inside as text', '$8\r\na\r\nb\r\n\r\n\r\n', 'a\r\nb\r\n\r\n'),
  one('UTF-8 bulk counts bytes', '$6\r\n日本\r\n', '日本'),
  one('invalid UTF-8 bulk as text', bytes('$2\r\n', [0xff, 0xfe], '\r\n'), '\ufffd\ufffd'),
  one('bulk as Buffer', '$5\r\nhello\r\n', buffer('hello'), binary),
  one('empty bulk as Buffer', '$0\r\n\r\n', buffer(''), binary),
  // Too many digits for the inline fast path: the general path reads the payload in one chunk.
  one('bulk length of 12 digits', '$000000000005\r\nhello\r\n', 'hello'),
  one('bulk length of 12 digits as Buffer', '$000000000005\r\nhello\r\n', buffer('hello'), binary),
  // Verbatim strings: the `fmt:` prefix is dropped.
  one('verbatim txt', '=15\r\ntxt:Some string\r\n', 'Some string'),
  one('verbatim mkd', '=11\r\nmkd:# Title\r\n', '# Title'),
  one('empty verbatim', '=4\r\ntxt:\r\n', ''),
  one('verbatim with CRLF inside', '=8\r\ntxt:a\r\nb\r\n', 'a\r\nb'),
  one('verbatim as Buffer', '=15\r\ntxt:Some string\r\n', buffer('Some string'), binary),
  // Blob errors.
  one('blob error', '!21\r\nSYNTAX invalid syntax\r\n', serverError('SYNTAX invalid syntax')),
  one('blob error with CRLF inside', '!8\r\nERR a\r\nb\r\n', serverError('ERR a\r\nb')),
  // Null, booleans.
  one('RESP3 null', '_\r\n', null),
  one('true', '#t\r\n', true),
  one('false', '#f\r\n', false),
  // Doubles, including the libc spellings of 7.0.15 and the spec.
  one('double', ',1.23\r\n', 1.23),
  one('integral double', ',10\r\n', 10),
  one('negative double', ',-3.5\r\n', -3.5),
  one('double with plus sign', ',+1.5\r\n', 1.5),
  one('double exponent', ',1e10\r\n', 1e10),
  one('double negative exponent', ',1.5E-3\r\n', 1.5e-3),
  one('double signed exponent', ',-1.5e+300\r\n', -1.5e300),
  one('Redis %.17g double', ',3.0000000000000001e-05\r\n', 3e-5),
  one('negative zero', ',-0\r\n', -0),
  one('zero double', ',0\r\n', 0),
  one('inf', ',inf\r\n', Infinity),
  one('-inf', ',-inf\r\n', -Infinity),
  one('+inf', ',+inf\r\n', Infinity),
  one('INF', ',INF\r\n', Infinity),
  one('-Inf', ',-Inf\r\n', -Infinity),
  one('nan', ',nan\r\n', Number.NaN),
  one('-nan (7.0.15)', ',-nan\r\n', Number.NaN),
  one('NAN', ',NAN\r\n', Number.NaN),
  one('nan(123)', ',nan(123)\r\n', Number.NaN),
  // Big numbers.
  one(
    'big number',
    '(3492890328409238509324850943850943825024385\r\n',
    3492890328409238509324850943850943825024385n,
  ),
  one(
    'negative big number',
    '(-3492890328409238509324850943850943825024385\r\n',
    -3492890328409238509324850943850943825024385n,
  ),
  one('small big number stays a bigint', '(0\r\n', 0n),
  one('big number with plus sign', '(+7\r\n', 7n),
  // Arrays.
  one('empty array', '*0\r\n', []),
  one('RESP2 null array', '*-1\r\n', null),
  one('array of integers', '*3\r\n:1\r\n:2\r\n:3\r\n', [1, 2, 3]),
  one('mixed array', '*5\r\n:1\r\n:2\r\n:3\r\n:4\r\n$5\r\nhello\r\n', [1, 2, 3, 4, 'hello']),
  one('nested arrays', '*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n', [
    [1, 2, 3],
    ['Hello', serverError('World')],
  ]),
  one('nulls inside an array', '*3\r\n$3\r\nfoo\r\n$-1\r\n_\r\n', ['foo', null, null]),
  one('EXEC result with a nested error', '*3\r\n+OK\r\n-ERR value is not an integer\r\n:2\r\n', [
    'OK',
    serverError('ERR value is not an integer'),
    2,
  ]),
  one('nested blob error', '*1\r\n!3\r\nERR\r\n', [serverError('ERR')]),
  one('RESP2 HGETALL flat array', '*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n', ['a', '1', 'b', '2']),
  one('array of Buffers', '*2\r\n$1\r\na\r\n+b\r\n', [buffer('a'), buffer('b')], binary),
  // Maps and sets.
  one('empty map', '%0\r\n', new Map()),
  one(
    'map',
    '%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n',
    new Map<RespValue, RespValue>([
      ['first', 1],
      ['second', 2],
    ]),
  ),
  one(
    'map with integer keys',
    '%2\r\n:1\r\n+a\r\n:2\r\n#f\r\n',
    new Map<RespValue, RespValue>([
      [1, 'a'],
      [2, false],
    ]),
  ),
  one(
    'map with an aggregate key and value',
    '%1\r\n*1\r\n:1\r\n%1\r\n+x\r\n_\r\n',
    new Map([[[1], new Map([['x', null]])]]),
  ),
  one('map with Buffer keys', '%1\r\n$1\r\nk\r\n$1\r\nv\r\n', new Map([[buffer('k'), buffer('v')]]), binary),
  one('empty set', '~0\r\n', new Set()),
  one(
    'set',
    '~5\r\n+orange\r\n+apple\r\n#t\r\n:100\r\n:999\r\n',
    new Set(['orange', 'apple', true, 100, 999]),
  ),
  one('set collapses duplicates', '~4\r\n+a\r\n$1\r\na\r\n:1\r\n,1\r\n', new Set(['a', 1])),
  one(
    'set of Buffers keeps equal payloads apart',
    '~2\r\n+a\r\n+a\r\n',
    new Set([buffer('a'), buffer('a')]),
    binary,
  ),
  // Attributes: never part of a value, reported just before what they annotate.
  vector(
    'attribute before a reply (spec example)',
    '|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n',
    [
      attribute([
        [
          'key-popularity',
          new Map<RespValue, RespValue>([
            ['a', 0.1923],
            ['b', 0.0012],
          ]),
        ],
      ]),
      reply([2039123, 9543892]),
    ],
  ),
  vector('attribute inside an array is not an element', '*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n:2\r\n', [
    attribute([['a', 'b']]),
    reply([1, 2]),
  ]),
  vector('attribute on a map value', '%1\r\n+k\r\n|1\r\n+ttl\r\n:5\r\n+v\r\n', [
    attribute([['ttl', 5]]),
    reply(new Map([['k', 'v']])),
  ]),
  vector('attribute before a push', '|1\r\n+a\r\n:1\r\n>2\r\n+message\r\n+x\r\n', [
    attribute([['a', 1]]),
    push(['message', 'x']),
  ]),
  vector('two attributes in a row', '|1\r\n+a\r\n:1\r\n|1\r\n+b\r\n:2\r\n+v\r\n', [
    attribute([['a', 1]]),
    attribute([['b', 2]]),
    reply('v'),
  ]),
  vector(
    'attributes dropped without a hook',
    '*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n|1\r\n+c\r\n+d\r\n:2\r\n',
    [reply([1, 2])],
    {
      attributeHook: false,
    },
  ),
  // Pushes.
  vector('push', '>3\r\n+message\r\n+news\r\n+hi\r\n', [push(['message', 'news', 'hi'])]),
  vector('invalidate push', '>2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\nfoo\r\n', [
    push(['invalidate', ['foo']]),
  ]),
  vector('pushes between replies', '+A\r\n>2\r\n+x\r\n:1\r\n:2\r\n>1\r\n+y\r\n>1\r\n+z\r\n$1\r\nB\r\n', [
    reply('A'),
    push(['x', 1]),
    reply(2),
    push(['y']),
    push(['z']),
    reply('B'),
  ]),
  vector(
    'push as Buffers',
    '>2\r\n+message\r\n$2\r\nhi\r\n',
    [push([buffer('message'), buffer('hi')])],
    binary,
  ),
  // Streamed strings and aggregates.
  one('streamed string (spec example)', '$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;1\r\nd\r\n;0\r\n', 'Hello word'),
  one('empty streamed string', '$?\r\n;0\r\n', ''),
  one('streamed string with CRLF in a chunk', '$?\r\n;4\r\na\r\nb\r\n;0\r\n', 'a\r\nb'),
  one(
    'UTF-8 character split across stream chunks',
    bytes('$?\r\n;1\r\n', [0xe6], '\r\n;2\r\n', [0x97, 0xa5], '\r\n;0\r\n'),
    '日',
  ),
  one('streamed string as Buffer', '$?\r\n;2\r\nab\r\n;1\r\nc\r\n;0\r\n', buffer('abc'), binary),
  one('streamed array', '*?\r\n:1\r\n:2\r\n:3\r\n.\r\n', [1, 2, 3]),
  one('empty streamed array', '*?\r\n.\r\n', []),
  one('streamed set', '~?\r\n+a\r\n+a\r\n+b\r\n.\r\n', new Set(['a', 'b'])),
  one(
    'streamed map',
    '%?\r\n+a\r\n:1\r\n+b\r\n:2\r\n.\r\n',
    new Map<RespValue, RespValue>([
      ['a', 1],
      ['b', 2],
    ]),
  ),
  one('streamed inside streamed', '*?\r\n*?\r\n:1\r\n.\r\n$?\r\n;1\r\nx\r\n;0\r\n.\r\n', [[1], 'x']),
  one('streamed inside fixed', '*2\r\n%?\r\n:1\r\n:2\r\n.\r\n:3\r\n', [new Map([[1, 2]]), 3]),
  vector('attribute inside a streamed array', '*?\r\n|1\r\n+a\r\n+b\r\n:1\r\n.\r\n', [
    attribute([['a', 'b']]),
    reply([1]),
  ]),
  // Pipelines: many replies per chunk.
  vector('pipelined replies', '+OK\r\n:1\r\n$3\r\nfoo\r\n*-1\r\n_\r\n-ERR x\r\n#t\r\n', [
    reply('OK'),
    reply(1),
    reply('foo'),
    reply(null),
    reply(null),
    reply(serverError('ERR x')),
    reply(true),
  ]),
  one(
    'HELLO 3 reply',
    '%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:4\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n',
    new Map<RespValue, RespValue>([
      ['server', 'redis'],
      ['version', '7.0.15'],
      ['proto', 3],
      ['id', 4],
      ['mode', 'standalone'],
      ['role', 'master'],
      ['modules', []],
    ]),
  ),
];

interface Chunking {
  readonly name: string;
  readonly chunkings: (input: Uint8Array) => Uint8Array[][];
}

const chunkings: Chunking[] = [
  { name: 'whole', chunkings: (input) => [whole(input), paddedView(input)] },
  { name: 'one byte per write', chunkings: (input) => [bytewise(input)] },
  { name: 'split at every offset', chunkings: splitsEverywhere },
];

describe('RespDecoder valid vectors', () => {
  for (const { name, chunkings: chunk } of chunkings) {
    it.each(validVectors)(`$name (${name})`, ({ input, events, settings }) => {
      for (const chunks of chunk(input)) {
        const outcome = feed(chunks, settings);
        expect(outcome.error).toBeUndefined();
        expect(describeEvents(outcome.events)).toEqual(describeEvents(events));
      }
    });
  }

  it('delivers an Array to onPush and a RespireServerError instance for errors', () => {
    const { events } = feed(whole(bytes('>1\r\n+a\r\n-ERR x\r\n*1\r\n!5\r\nERR y\r\n')));
    expect(Array.isArray(events[0]?.value)).toBe(true);
    expect(events[1]?.value).toBeInstanceOf(RespireServerError);
    expect((events[1]!.value as RespireServerError).code).toBe('ERR');
    const nested = (events[2]!.value as RespValue[])[0];
    expect(nested).toBeInstanceOf(RespireServerError);
    expect((nested as RespireServerError).message).toBe('ERR y');
  });
});

/** A malformed stream: `+OK` then `lead` (well formed), then `token`, the bytes at fault, then `tail`. */
interface BadVector {
  readonly name: string;
  readonly input: Uint8Array;
  /** Inclusive range of acceptable `offset` values. */
  readonly range: readonly [number, number];
  readonly settings?: DecoderSettings;
}

function bad(name: string, lead: string, token: string, tail = '', settings?: DecoderSettings): BadVector {
  const start = 5 + Buffer.byteLength(lead);
  const input = bytes('+OK\r\n', lead, token, tail);
  return { name, input, range: [start, start + Buffer.byteLength(token) - 1], settings };
}

const limits = { maxNestingDepth: 2, maxBulkLength: 10, maxAggregateLength: 3 } as const;

const malformedVectors: BadVector[] = [
  bad('unknown type byte', '', '@abc\r\n'),
  bad('unknown type byte inside an array', '*2\r\n:1\r\n', '@\r\n'),
  bad('type byte zero', '', '\0\r\n'),
  bad('empty bulk length', '', '$\r\n'),
  bad('letters in a bulk length', '', '$abc\r\n'),
  bad('trailing garbage in a length', '', '*1x\r\n', ':1\r\n'),
  bad('space in a length', '', '$ 3\r\n', 'abc\r\n'),
  bad('leading plus in an array length', '', '*+1\r\n', ':1\r\n'),
  bad('leading plus in a bulk length', '', '$+1\r\n', 'a\r\n'),
  bad('empty integer', '', ':\r\n'),
  bad('sign-only integer', '', ':-\r\n'),
  bad('fractional integer', '', ':1.5\r\n'),
  bad('double minus integer', '', ':--1\r\n'),
  bad('letters in an integer', '', ':12a\r\n'),
  bad('empty big number', '', '(\r\n'),
  bad('fractional big number', '', '(1.5\r\n'),
  bad('bulk length -2', '', '$-2\r\n'),
  bad('array length -2', '', '*-2\r\n'),
  bad('map length -1', '', '%-1\r\n'),
  bad('set length -1', '', '~-1\r\n'),
  bad('push length -1', '', '>-1\r\n'),
  bad('attribute length -1', '', '|-1\r\n', '+a\r\n'),
  bad('blob error length -1', '', '!-1\r\n'),
  bad('verbatim length -1', '', '=-1\r\n'),
  bad('payload longer than its length', '$3\r\nabc', 'd\r\n'),
  bad('payload followed by garbage', '$3\r\nabc', 'XY'),
  bad('blob error payload without CRLF', '!3\r\nERR', 'xx'),
  bad('CR not followed by LF in a simple string', '+OK', '\rX', '\n'),
  bad('CR not followed by LF in a length', '$3', '\rX', 'abc\r\n'),
  bad('CR not followed by LF after a payload', '$3\r\nabc', '\rX'),
  bad('CR not followed by LF after an array header', '*1', '\r:', '1\r\n'),
  bad('boolean x', '', '#x\r\n'),
  bad('boolean tt', '', '#tt\r\n'),
  bad('empty boolean', '', '#\r\n'),
  bad('null with a payload', '', '_x\r\n'),
  bad('empty double', '', ',\r\n'),
  bad('letters as a double', '', ',abc\r\n'),
  bad('two dots in a double', '', ',1.2.3\r\n'),
  bad('exponent without digits', '', ',1e\r\n'),
  bad('hexadecimal double', '', ',0x10\r\n'),
  bad('space in a double', '', ', 1\r\n'),
  bad('double minus double', '', ',--1\r\n'),
  bad('inf with a suffix', '', ',infx\r\n'),
  bad('verbatim shorter than its prefix', '', '=3\r\ntxt\r\n'),
  bad('verbatim without colon at byte 3', '', '=5\r\ntxt;a\r\n'),
  bad('stray end marker', '', '.\r\n'),
  bad('end marker inside a fixed array', '*2\r\n:1\r\n', '.\r\n'),
  bad('odd streamed map', '%?\r\n+a\r\n', '.\r\n'),
  bad('stream chunk outside a streamed string', '', ';3\r\n', 'abc\r\n'),
  bad('stream chunk inside an array', '*1\r\n', ';1\r\n', 'a\r\n'),
  bad('non-chunk inside a streamed string', '$?\r\n;1\r\na\r\n', '+abc\r\n'),
  bad('end marker inside a streamed string', '$?\r\n', '.\r\n'),
  bad('bad stream chunk length', '$?\r\n', ';x\r\n'),
  bad('stream chunk without CRLF', '$?\r\n;3\r\nabc', 'XY'),
  bad('push inside an array', '*1\r\n', '>1\r\n', '+a\r\n'),
  bad('push inside a map', '%1\r\n+k\r\n', '>1\r\n', '+a\r\n'),
  bad('push inside a streamed array', '*?\r\n', '>1\r\n', '+a\r\n.\r\n'),
  bad('nesting one beyond maxNestingDepth', '*1\r\n*1\r\n', '*1\r\n', ':1\r\n', limits),
  bad('map and set nesting beyond maxNestingDepth', '%1\r\n+k\r\n~1\r\n', '*1\r\n', ':1\r\n', limits),
  bad('empty array one beyond maxNestingDepth', '%1\r\n+k\r\n~1\r\n', '*0\r\n', '', limits),
  bad('empty map one beyond maxNestingDepth', '*1\r\n*1\r\n', '%0\r\n', '', limits),
  bad('bulk one beyond maxBulkLength', '', '$11\r\n', 'abcdefghijk\r\n', limits),
  bad('blob error beyond maxBulkLength', '', '!11\r\n', 'ERR 5678901\r\n', limits),
  bad('verbatim beyond maxBulkLength', '', '=11\r\n', 'txt:5678901\r\n', limits),
  bad('simple string line far beyond maxBulkLength', '', `+${'a'.repeat(100)}\r\n`, '', limits),
  bad('integer line far beyond maxBulkLength', '', `:${'1'.repeat(100)}\r\n`, '', limits),
  bad('array one beyond maxAggregateLength', '', '*4\r\n', ':1\r\n:2\r\n:3\r\n:4\r\n', limits),
  bad('set beyond maxAggregateLength', '', '~4\r\n', ':1\r\n:2\r\n:3\r\n:4\r\n', limits),
  bad('push beyond maxAggregateLength', '', '>4\r\n', ':1\r\n:2\r\n:3\r\n:4\r\n', limits),
  bad(
    'map pairs beyond maxAggregateLength',
    '',
    '%4\r\n',
    ':1\r\n:1\r\n:2\r\n:2\r\n:3\r\n:3\r\n:4\r\n:4\r\n',
    limits,
  ),
];

function expectFailure(
  outcome: ReturnType<typeof feed>,
  range: readonly [number, number],
): RespireProtocolError {
  const error = asProtocolError(outcome.error);
  expect(error.message.length).toBeGreaterThan(0);
  expect(Number.isInteger(error.offset)).toBe(true);
  expect(error.offset).toBeGreaterThanOrEqual(range[0]);
  expect(error.offset).toBeLessThanOrEqual(range[1]);
  // The reply before the fault was delivered before the decoder gave up.
  expect(describeEvents(outcome.events)).toEqual(describeEvents([reply('OK')]));
  return error;
}

describe('RespDecoder malformed vectors', () => {
  for (const { name, chunkings: chunk } of chunkings) {
    it.each(malformedVectors)(`$name (${name})`, ({ input, range, settings }) => {
      for (const chunks of chunk(input)) {
        const outcome = feed(chunks, settings);
        expectFailure(outcome, range);
        // No silent resynchronisation: every later write fails again, even an empty one.
        expect(() => outcome.decoder.write(bytes('+OK\r\n'))).toThrow(RespireProtocolError);
        expect(() => outcome.decoder.write(new Uint8Array(0))).toThrow(RespireProtocolError);
      }
    });
  }

  it('limits accept exactly their bound', () => {
    const accepted = bytes(
      '*1\r\n*1\r\n:1\r\n',
      '*1\r\n*1\r\n$?\r\n;1\r\nx\r\n;0\r\n',
      '$10\r\n0123456789\r\n',
      '=10\r\ntxt:567890\r\n',
      '*3\r\n:1\r\n:2\r\n:3\r\n',
      '%3\r\n:1\r\n:1\r\n:2\r\n:2\r\n:3\r\n:3\r\n',
    );
    for (const chunks of [whole(accepted), bytewise(accepted)]) {
      const outcome = feed(chunks, limits);
      expect(outcome.error).toBeUndefined();
      expect(outcome.events.map((event) => event.kind)).toEqual(Array(6).fill('reply'));
    }
  });

  it('rejects an over-long bulk at its header, before the payload arrives', () => {
    const outcome = feed(whole(bytes('$11\r\n')), limits);
    expect(asProtocolError(outcome.error).offset).toBe(0);
  });

  it('rejects a simple line that outgrows maxBulkLength without waiting for its CRLF', () => {
    const outcome = feed(bytewise(bytes(`+${'a'.repeat(1000)}`)), { maxBulkLength: 16 });
    const error = asProtocolError(outcome.error);
    expect(error.offset).toBeGreaterThanOrEqual(0);
    expect(error.offset).toBeLessThan(1001);
    expect(feed(whole(bytes(`+${'a'.repeat(5)}\r\n`)), { maxBulkLength: 16 }).events).toHaveLength(1);
  });

  it('rejects a streamed map that ends after a key', () => {
    const outcome = feed(bytewise(bytes('%?\r\n:1\r\n:2\r\n:3\r\n.\r\n')));
    expect(asProtocolError(outcome.error).offset).toBeGreaterThanOrEqual(16);
  });

  it('reports absolute stream offsets after many earlier writes', () => {
    const { decoder } = recordingDecoder();
    for (let index = 0; index < 1000; index++) decoder.write(bytes('+OK\r\n'));
    expect(() => decoder.write(bytes(':1\r\n@\r\n'))).toThrow(
      expect.objectContaining({ name: 'RespireProtocolError', offset: 5004 }),
    );
  });

  it('reset() clears the failure and restarts offsets at zero', () => {
    const { decoder, events } = recordingDecoder();
    expect(() => decoder.write(bytes('+OK\r\n@\r\n'))).toThrow(RespireProtocolError);
    decoder.reset();
    decoder.write(bytes('+again\r\n'));
    expect(describeEvents(events)).toEqual(describeEvents([reply('OK'), reply('again')]));
    expect(() => decoder.write(bytes('?'))).toThrow(expect.objectContaining({ offset: 8 }));
    decoder.reset();
    expect(() => decoder.write(bytes('?'))).toThrow(expect.objectContaining({ offset: 0 }));
  });

  it('reset() forgets a partial frame', () => {
    const { decoder, events } = recordingDecoder();
    decoder.write(bytes('*2\r\n$10\r\nabc'));
    decoder.reset();
    decoder.write(bytes('+fresh\r\n'));
    expect(describeEvents(events)).toEqual(describeEvents([reply('fresh')]));
  });
});

/** The value under `levels` single-element arrays or sets, or `undefined` when the shape differs. */
function innermost(value: RespValue, levels: number): RespValue | undefined {
  for (let level = 0; level < levels; level++) {
    if (Array.isArray(value) && value.length === 1) value = value[0]!;
    else if (value instanceof Set && value.size === 1) value = value.values().next().value!;
    else return undefined;
  }
  return value;
}

describe('RespDecoder defaults and limits', () => {
  it('accepts a 512 MiB bulk header by default and rejects one byte more', () => {
    expect(feed(whole(bytes(`$${512 * 1024 * 1024}\r\nab`))).error).toBeUndefined();
    const outcome = feed(whole(bytes(`+OK\r\n$${512 * 1024 * 1024 + 1}\r\n`)));
    expect(asProtocolError(outcome.error).offset).toBeGreaterThanOrEqual(5);
  });

  it('accepts a 2^32-1 element header by default (no preallocation) and rejects 2^32', () => {
    expect(feed(whole(bytes('*4294967295\r\n:1\r\n'))).error).toBeUndefined();
    expect(feed(whole(bytes('%4294967295\r\n:1\r\n'))).error).toBeUndefined();
    expect(feed(whole(bytes('*4294967296\r\n'))).error).toBeInstanceOf(RespireProtocolError);
  });

  it('decodes 100,000 levels of nesting without a stack overflow', () => {
    const depth = 100_000;
    const input = bytes('*1\r\n'.repeat(depth), ':7\r\n', '~1\r\n'.repeat(depth), '+x\r\n');
    for (const chunks of [whole(input), fixedChunks(input, 65_536)]) {
      const { events, error } = feed(chunks);
      expect(error).toBeUndefined();
      expect(events).toHaveLength(2);
      expect(innermost(events[0]!.value, depth)).toBe(7);
      expect(innermost(events[1]!.value, depth)).toBe('x');
    }
  });

  it('enforces the default depth of 1,000,000: that many levels decode, one more throws', () => {
    const levels = 1_000_000;
    const deepest = feed(whole(bytes('*1\r\n'.repeat(levels), '_\r\n')));
    expect(deepest.error).toBeUndefined();
    expect(deepest.events).toHaveLength(1);
    const tooDeep = feed(whole(bytes('*1\r\n'.repeat(levels + 1), '_\r\n')));
    const error = asProtocolError(tooDeep.error);
    expect(error.offset).toBeGreaterThanOrEqual(levels * 4);
    expect(error.offset).toBeLessThan((levels + 1) * 4);
  });
});

/** Deterministic filler with every byte value, CR/LF runs included. */
function patternBytes(length: number): Buffer {
  const block = Buffer.alloc(4096);
  for (let index = 0; index < block.length; index++) block[index] = (index * 131 + (index >> 8)) & 0xff;
  block.write('\r\n$5\r\n*1\r\n', 100, 'latin1');
  const out = Buffer.alloc(length);
  for (let start = 0; start < length; start += block.length) block.copy(out, start);
  return out;
}

describe('RespDecoder large payloads', () => {
  it('decodes a 1 MiB bulk in 64 KiB chunks identically to whole, as Buffer and as text', () => {
    const payload = patternBytes(1024 * 1024);
    const input = bytes(`$${payload.length}\r\n`, payload, '\r\n:1\r\n');
    const text = Buffer.from('日本語 text, ✓ '.repeat(60_000));
    const textInput = bytes(`$${text.length}\r\n`, text, '\r\n');
    const results: unknown[] = [];
    for (const chunks of [whole(input), fixedChunks(input, 65_536)]) {
      const { events, error } = feed(chunks, binary);
      expect(error).toBeUndefined();
      expect(events).toHaveLength(2);
      expect(Buffer.compare(events[0]!.value as Buffer, payload)).toBe(0);
      results.push(describeValue(events[1]!.value));
    }
    expect(results).toEqual([{ number: '1' }, { number: '1' }]);
    for (const chunks of [whole(textInput), fixedChunks(textInput, 65_536)]) {
      const { events } = feed(chunks);
      expect(events[0]?.value).toBe(text.toString('utf8'));
    }
  });

  it('completes a 64 MiB bulk in 64 KiB chunks (linear-time assembly)', () => {
    const size = 64 * 1024 * 1024;
    const input = Buffer.alloc(size + 32);
    const header = `$${size}\r\n`;
    input.write(header, 0, 'latin1');
    const payload = input.subarray(header.length, header.length + size);
    payload.fill('0123456789abcdef\r\n');
    input.write('\r\n+end\r\n', header.length + size, 'latin1');
    const stream = input.subarray(0, header.length + size + 8);
    const { events, error } = feed(fixedChunks(stream, 65_536), binary);
    expect(error).toBeUndefined();
    expect(events).toHaveLength(2);
    expect((events[0]!.value as Buffer).equals(payload)).toBe(true);
    expect(events[1]!.value).toEqual(buffer('end'));
  }, 20_000);
});

describe('RespDecoder returnBuffers zero-copy', () => {
  it('slices payloads out of the chunk they arrived in', () => {
    const input = bytes('$5\r\nhello\r\n+simple\r\n=8\r\ntxt:verb\r\n');
    for (const chunk of [...whole(input), ...paddedView(input)]) {
      const { events } = feed([chunk], binary);
      expect(events.map((event) => (event.value as Buffer).toString())).toEqual(['hello', 'simple', 'verb']);
      for (const { value } of events) {
        expect(Buffer.isBuffer(value)).toBe(true);
        expect((value as Buffer).buffer).toBe(chunk.buffer);
      }
    }
  });

  it('copies a payload split across chunks, keeping the bytes intact', () => {
    const input = bytes('$5\r\nhello\r\n');
    for (let offset = 1; offset < input.length; offset++) {
      const { events } = feed([input.subarray(0, offset), input.subarray(offset)], binary);
      expect(events.map((event) => describeValue(event.value))).toEqual([
        { buffer: buffer('hello').toString('hex') },
      ]);
    }
  });
});

describe('RespDecoder callbacks that throw', () => {
  const failure = new Error('callback failed');

  /** A decoder whose callbacks record, and whose `kind` callback throws `failure` the first time. */
  function throwingOnce(kind: DecodedEvent['kind']): { decoder: RespDecoder; seen: DecodedEvent[] } {
    const seen: DecodedEvent[] = [];
    let armed = true;
    const record = (event: DecodedEvent) => {
      seen.push(event);
      if (armed && event.kind === kind) {
        armed = false;
        throw failure;
      }
    };
    const decoder = new RespDecoder({
      onReply: (value) => record(reply(value)),
      onPush: (frame) => record(push(frame)),
      onAttribute: (attributes) => record({ kind: 'attribute', value: attributes }),
    });
    return { decoder, seen };
  }

  it('propagates an onReply error and keeps the bytes after the value', () => {
    const { decoder, seen } = throwingOnce('reply');
    expect(() => decoder.write(bytes('+A\r\n+B\r\n:3\r\n$1'))).toThrow(failure);
    expect(describeEvents(seen)).toEqual(describeEvents([reply('A')]));
    decoder.write(new Uint8Array(0));
    expect(describeEvents(seen)).toEqual(describeEvents([reply('A'), reply('B'), reply(3)]));
    decoder.write(bytes('\r\nC\r\n'));
    expect(describeEvents(seen)).toEqual(describeEvents([reply('A'), reply('B'), reply(3), reply('C')]));
  });

  it('propagates an onPush error and keeps the bytes after the push', () => {
    const { decoder, seen } = throwingOnce('push');
    expect(() => decoder.write(bytes('>1\r\n+p\r\n+after\r\n'))).toThrow(failure);
    expect(describeEvents(seen)).toEqual(describeEvents([push(['p'])]));
    decoder.write(new Uint8Array(0));
    expect(describeEvents(seen)).toEqual(describeEvents([push(['p']), reply('after')]));
  });

  it('propagates an onAttribute error and still delivers the annotated value next', () => {
    const { decoder, seen } = throwingOnce('attribute');
    expect(() => decoder.write(bytes('|1\r\n+a\r\n:1\r\n+OK\r\n'))).toThrow(failure);
    expect(describeEvents(seen)).toEqual(describeEvents([attribute([['a', 1]])]));
    decoder.write(new Uint8Array(0));
    expect(describeEvents(seen)).toEqual(describeEvents([attribute([['a', 1]]), reply('OK')]));
  });

  it('keeps decoding normally after a callback error, including later protocol checks', () => {
    const { decoder, seen } = throwingOnce('reply');
    expect(() => decoder.write(bytes(':1\r\n:2\r\n'))).toThrow(failure);
    decoder.write(bytes(':3\r\n'));
    expect(describeEvents(seen)).toEqual(describeEvents([reply(1), reply(2), reply(3)]));
    expect(() => decoder.write(bytes('@\r\n'))).toThrow(expect.objectContaining({ offset: 12 }));
  });
});
