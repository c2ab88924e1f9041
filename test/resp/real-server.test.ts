// RespDecoder against bytes captured from a real redis-server 7.0.15, in RESP3 and RESP2: each
// captured stream decodes to the expected values, whole, one byte at a time, and split at random.
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/errors.js';
import { RespDecoder } from '../../src/resp/decoder.js';
import type { RespValue } from '../../src/resp/types.js';
import { RawConnection } from '../kit/raw-connection.js';
import { seededRandom } from '../kit/seeded-random.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const random = seededRandom();

type Event = { kind: 'reply' | 'push' | 'attribute'; value: RespValue };

function decodeChunks(chunks: Iterable<Uint8Array>, returnBuffers: boolean): Event[] {
  const events: Event[] = [];
  const decoder = new RespDecoder({
    onReply: (value) => events.push({ kind: 'reply', value }),
    onPush: (frame) => events.push({ kind: 'push', value: frame }),
    onAttribute: (attributes) => events.push({ kind: 'attribute', value: attributes }),
    returnBuffers,
  });
  for (const chunk of chunks) decoder.write(chunk);
  return events;
}

function* oneByteAtATime(bytes: Buffer): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
}

function* randomPieces(bytes: Buffer): Generator<Buffer> {
  for (let i = 0; i < bytes.length; ) {
    const size = random.chance(0.5) ? random.int(1, 8) : random.int(1, Math.max(1, bytes.length >> 2));
    yield bytes.subarray(i, i + size);
    i += size;
  }
}

/** Decode `bytes` whole, byte by byte and in random pieces; all three must agree exactly. */
function decode(bytes: Buffer, returnBuffers = false): Event[] {
  const whole = decodeChunks([bytes], returnBuffers);
  expect(normalize(decodeChunks(oneByteAtATime(bytes), returnBuffers)), 'byte by byte').toEqual(
    normalize(whole),
  );
  expect(normalize(decodeChunks(randomPieces(bytes), returnBuffers)), 'random pieces').toEqual(
    normalize(whole),
  );
  return whole;
}

/** A strict, order-preserving form for toEqual: tells -0 from 0, bigint from number, Set from Array. */
function normalize(value: unknown): unknown {
  if (value instanceof RespireServerError) return { error: value.code, message: value.message };
  if (Buffer.isBuffer(value)) return { buffer: value.toString('hex') };
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [normalize(k), normalize(v)]) };
  if (value instanceof Set) return { set: [...value].map(normalize) };
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value === 'bigint') return { bigint: String(value) };
  if (typeof value === 'number' && (Object.is(value, -0) || Number.isNaN(value)))
    return { number: String(value) };
  if (value !== null && typeof value === 'object' && 'kind' in value && 'value' in value) {
    return { kind: value.kind, value: normalize(value.value) };
  }
  return value;
}

const reply = (value: RespValue): Event => ({ kind: 'reply', value });
const push = (value: RespValue[]): Event => ({ kind: 'push', value });
const error = (message: string) => new RespireServerError(message);
const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';

describe.each([3, 2] as const)('RESP%i', (protocol) => {
  /** The RESP3 or the RESP2 expectation. */
  const by = <A, B = A>(resp3: A, resp2: B): A | B => (protocol === 3 ? resp3 : resp2);
  const key = (name: string) => `p${protocol}:${name}`;

  /** A connection switched to `protocol` with HELLO; the HELLO reply is checked by its own test. */
  async function open(): Promise<RawConnection> {
    const connection = await RawConnection.open(server);
    await connection.request([['HELLO', String(protocol)]]);
    return connection;
  }

  /** Send commands as one pipeline, capture `frames` frames, decode them and compare to `expected`. */
  async function expectEvents(commands: string[][], expected: Event[], frames = commands.length) {
    const connection = await open();
    try {
      const bytes = await connection.request(commands, frames);
      const events = decode(bytes);
      expect(normalize(events)).toEqual(normalize(expected));
      return { bytes, events };
    } finally {
      connection.close();
    }
  }

  it('decodes the HELLO reply (a map in RESP3, a flat array in RESP2)', async () => {
    const connection = await RawConnection.open(server);
    const [event] = decode(await connection.request([['HELLO', String(protocol)]]));
    connection.close();
    const fields = ['server', 'version', 'proto', 'id', 'mode', 'role', 'modules'];
    const value = event!.value;
    const entries = by(
      [...(value as Map<RespValue, RespValue>)],
      Array.from({ length: 7 }, (_, i) => [(value as RespValue[])[2 * i], (value as RespValue[])[2 * i + 1]]),
    );
    expect(event!.kind).toBe('reply');
    expect(value).toBeInstanceOf(by<unknown>(Map, Array));
    expect(entries.map(([name]) => name)).toEqual(fields);
    const map = new Map(entries as [RespValue, RespValue][]);
    expect(map.get('server')).toBe('redis');
    expect(map.get('version')).toBe('7.0.15');
    expect(map.get('proto')).toBe(protocol);
    expect(typeof map.get('id')).toBe('number');
    expect(map.get('mode')).toBe('standalone');
    expect(map.get('modules')).toEqual([]);
  });

  it('decodes status, bulk, integer and null replies', async () => {
    const { bytes } = await expectEvents(
      [
        ['SET', key('k'), 'v'],
        ['GET', key('k')],
        ['GET', key('missing')],
        ['INCR', key('n')],
        ['EXISTS', key('k'), key('missing')],
      ],
      [reply('OK'), reply('v'), reply(null), reply(1), reply(1)],
    );
    expect(bytes.toString()).toContain(by('\r\n_\r\n', '\r\n$-1\r\n'));
  });

  it('decodes integers as numbers up to 2^53 - 1 and as bigints beyond, up to 2^63 - 1', async () => {
    await expectEvents(
      [
        ['SET', key('i'), '9007199254740990'],
        ['INCRBY', key('i'), '1'],
        ['INCRBY', key('i'), '1'],
        ['SET', key('j'), '-9007199254740990'],
        ['DECRBY', key('j'), '1'],
        ['DECRBY', key('j'), '1'],
        ['SET', key('max'), '9223372036854775800'],
        ['INCRBY', key('max'), '7'],
        ['INCRBY', key('max'), '1'],
        ['SET', key('min'), '-9223372036854775801'],
        ['DECRBY', key('min'), '7'],
      ],
      [
        reply('OK'),
        reply(9007199254740991),
        reply(9007199254740992n),
        reply('OK'),
        reply(-9007199254740991),
        reply(-9007199254740992n),
        reply('OK'),
        reply(9223372036854775807n),
        reply(error('ERR increment or decrement would overflow')),
        reply('OK'),
        reply(-9223372036854775808n),
      ],
    );
  });

  it('decodes HGETALL as a Map in RESP3 and a flat array in RESP2', async () => {
    await expectEvents(
      [
        ['HSET', key('h'), 'f1', 'v1', 'f2', 'v2'],
        ['HGETALL', key('h')],
        ['HGETALL', key('none')],
      ],
      [
        reply(2),
        reply(
          by<RespValue>(
            new Map([
              ['f1', 'v1'],
              ['f2', 'v2'],
            ]),
            ['f1', 'v1', 'f2', 'v2'],
          ),
        ),
        reply(by<RespValue>(new Map(), [])),
      ],
    );
  });

  it('decodes SMEMBERS as a Set in RESP3 and an array in RESP2', async () => {
    const connection = await open();
    const bytes = await connection.request([
      ['SADD', key('s'), 'a', 'b', 'c'],
      ['SMEMBERS', key('s')],
    ]);
    connection.close();
    const [added, members] = decode(bytes);
    expect(added!.value).toBe(3);
    expect(members!.value).toBeInstanceOf(by<unknown>(Set, Array));
    expect([...(members!.value as Iterable<RespValue>)].sort()).toEqual(['a', 'b', 'c']);
  });

  it('decodes scores as doubles in RESP3 and strings in RESP2', async () => {
    await expectEvents(
      [
        ['ZADD', key('z'), '1.5', 'a', '2', 'b', 'inf', 'c', '-inf', 'd'],
        ['ZSCORE', key('z'), 'a'],
        ['ZRANGE', key('z'), '0', '-1', 'WITHSCORES'],
        ['ZSCORE', key('z'), 'missing'],
      ],
      [
        reply(4),
        reply(by(1.5, '1.5')),
        reply(
          by<RespValue>(
            [
              ['d', -Infinity],
              ['a', 1.5],
              ['b', 2],
              ['c', Infinity],
            ],
            ['d', '-inf', 'a', '1.5', 'b', '2', 'c', 'inf'],
          ),
        ),
        reply(null),
      ],
    );
  });

  it('decodes a top-level error as a RespireServerError with its code', async () => {
    const { events } = await expectEvents(
      [['HSET', key('wt'), 'f', 'v'], ['GET', key('wt')], ['NOSUCHCOMMAND']],
      [
        reply(1),
        reply(error(WRONGTYPE)),
        reply(error("ERR unknown command 'NOSUCHCOMMAND', with args beginning with: ")),
      ],
    );
    const wrongType = events[1]!.value as RespireServerError;
    expect(wrongType).toBeInstanceOf(RespireServerError);
    expect(wrongType.name).toBe('RespireServerError');
    expect(wrongType.code).toBe('WRONGTYPE');
  });

  it('decodes MULTI/EXEC with an error inside the result array, and EXECABORT', async () => {
    const { events } = await expectEvents(
      [
        ['MULTI'],
        ['SET', key('tx'), '1'],
        ['LPUSH', key('tx'), 'a'],
        ['GET', key('tx')],
        ['EXEC'],
        ['MULTI'],
        ['NOSUCHCOMMAND'],
        ['EXEC'],
      ],
      [
        reply('OK'),
        reply('QUEUED'),
        reply('QUEUED'),
        reply('QUEUED'),
        reply(['OK', error(WRONGTYPE), '1']),
        reply('OK'),
        reply(error("ERR unknown command 'NOSUCHCOMMAND', with args beginning with: ")),
        reply(error('EXECABORT Transaction discarded because of previous errors.')),
      ],
    );
    expect((events[4]!.value as RespValue[])[1]).toBeInstanceOf(RespireServerError);
  });

  it('decodes a BLPOP timeout as null (a null array in RESP2)', async () => {
    const { bytes } = await expectEvents([['BLPOP', key('empty'), '0.01']], [reply(null)]);
    expect(bytes.toString()).toBe(by('_\r\n', '*-1\r\n'));
  });

  it('decodes Lua doubles (7.0 sends -nan) and big numbers', async () => {
    const { bytes } = await expectEvents(
      [
        ['EVAL', 'return {double=0/0}', '0'],
        ['EVAL', 'return {double=-0.0}', '0'],
        ['EVAL', 'return {double=1/0}', '0'],
        ['EVAL', "return {big_number='1234567890123456789012345678901234567890'}", '0'],
        ['EVAL', "return {big_number='-17'}", '0'],
      ],
      [
        reply(by(Number.NaN, '-nan')),
        reply(by(-0, '-0')),
        reply(by(Number.POSITIVE_INFINITY, 'inf')),
        reply(
          by<RespValue>(
            1234567890123456789012345678901234567890n,
            '1234567890123456789012345678901234567890',
          ),
        ),
        reply(by<RespValue>(-17n, '-17')),
      ],
    );
    expect(bytes.toString().startsWith(by(',-nan\r\n', '$4\r\n-nan\r\n'))).toBe(true);
  });

  it('decodes every DEBUG PROTOCOL type, with its attribute and push, in one pipeline', async () => {
    const types = ['string', 'integer', 'double', 'bignum', 'null', 'array', 'set', 'map', 'attrib', 'push'];
    const more = ['verbatim', 'true', 'false'];
    const commands = [...types, ...more].map((type) => ['DEBUG', 'PROTOCOL', type]);
    const attribute: Event = { kind: 'attribute', value: new Map([['key-popularity', ['key:123', 90]]]) };
    await expectEvents(
      commands,
      [
        reply('Hello World'),
        reply(12345),
        reply(by(Number('3.141'), '3.141')), // what the server sends, not Math.PI
        reply(by<RespValue>(1234567999999999999999999999999999999n, '1234567999999999999999999999999999999')),
        reply(null),
        reply([0, 1, 2]),
        reply(by<RespValue>(new Set([0, 1, 2]), [0, 1, 2])),
        reply(
          by<RespValue>(
            new Map<RespValue, RespValue>([
              [0, false],
              [1, true],
              [2, false],
            ]),
            [0, 0, 1, 1, 2, 0],
          ),
        ),
        ...by([attribute], []),
        reply('Some real reply following the attribute'),
        ...by(
          [push(['server-cpu-usage', 42]), reply('Some real reply following the push reply')],
          [reply(error('ERR RESP2 is not supported by this command'))],
        ),
        reply('This is a verbatim\nstring'),
        reply(by(true, 1)),
        reply(by(false, 0)),
      ],
      commands.length + by(1, 0), // the RESP3 push is a frame of its own
    );
  });

  it('delivers pub/sub messages (pushes in RESP3, replies in RESP2) between replies', async () => {
    const subscriber = await open();
    const publisher = await open();
    try {
      const captured: Buffer[] = [];
      captured.push(await subscriber.request([['SUBSCRIBE', key('a'), key('b')]], 2));
      captured.push(await publisher.request([['PUBLISH', key('a'), 'hello']]));
      captured.push(await subscriber.readFrames(1));
      if (protocol === 3) {
        // RESP3 lets a subscribed connection run any command; the message lands between replies.
        captured.push(
          await subscriber.request(
            [
              ['SET', key('k'), 'v'],
              ['PUBLISH', key('b'), 'self'],
              ['GET', key('k')],
            ],
            4,
          ),
        );
      } else {
        captured.push(await subscriber.request([['PING']]));
      }
      const [subscribed, published, delivered, tail] = captured.map((bytes) => normalize(decode(bytes)));
      const message = (channel: string, payload: string) => ['message', key(channel), payload];
      const event = protocol === 3 ? push : (value: RespValue[]) => reply(value);
      expect(subscribed).toEqual(
        normalize([event(['subscribe', key('a'), 1]), event(['subscribe', key('b'), 2])]),
      );
      expect(published).toEqual(normalize([reply(1)]));
      expect(delivered).toEqual(normalize([event(message('a', 'hello'))]));
      expect(tail).toEqual(
        normalize(by([reply('OK'), push(message('b', 'self')), reply(1), reply('v')], [reply(['pong', ''])])),
      );
      // The subscriber's whole stream, decoded in one go, keeps the same order.
      const stream = Buffer.concat([captured[0]!, captured[2]!, captured[3]!]);
      expect(normalize(decode(stream))).toEqual([subscribed, delivered, tail].flat());
    } finally {
      subscriber.close();
      publisher.close();
    }
  });

  it('decodes UTF-8 text, binary values and a 256 KiB bulk, as strings or Buffers', async () => {
    const text = '日本語 ✓ \r\n';
    const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const big = Buffer.alloc(256 * 1024, 'ab\r\n$3\r\n');
    const connection = await open();
    const bytes = await connection.request([
      ['SET', key('text'), text],
      ['GET', key('text')],
      ['SET', key('bin'), binary],
      ['GET', key('bin')],
      ['SET', key('big'), big],
      ['GET', key('big')],
    ]);
    connection.close();
    const strings = decode(bytes).map((event) => event.value);
    expect(strings[1]).toBe(text);
    expect(strings[5]).toBe(big.toString());
    const buffers = decode(bytes, true).map((event) => event.value);
    expect(buffers[0]).toEqual(Buffer.from('OK'));
    expect(buffers[1]).toEqual(Buffer.from(text));
    expect(Buffer.isBuffer(buffers[3]) && buffers[3].equals(binary)).toBe(true);
    expect(Buffer.isBuffer(buffers[5]) && buffers[5].equals(big)).toBe(true);
  });
});
