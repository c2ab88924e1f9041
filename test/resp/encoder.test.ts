// Tests of the RESP command encoder (PROTOCOL.md §1.5): exact bytes, argument errors, the pipeline
// buffer's policy and ownership, and properties checked by an independent parser and by RespDecoder.
// A property failure prints fast-check's seed and path; replay with SEED=<seed>.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../src/errors.js';
import { RespDecoder } from '../../src/resp/decoder.js';
import { CommandEncoder, encodeCommand, type RespArgument } from '../../src/resp/encoder.js';
import type { RespValue } from '../../src/resp/types.js';

const seed = process.env.SEED === undefined ? undefined : Number(process.env.SEED);
function run<Ts>(property: fc.IProperty<Ts>, numRuns: number): void {
  fc.assert(property, seed === undefined ? { numRuns } : { numRuns, seed });
}

const wire = (text: string) => Buffer.from(text, 'latin1');
/** A takeChunks() chunk as the bytes a socket sends for it: strings are written as Latin-1. */
const bytesOf = (chunk: Buffer | string): Buffer =>
  typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
const encodedText = (args: readonly RespArgument[]) => encodeCommand(args).toString('latin1');

/**
 * Test-side parser of a stream of commands (`*N\r\n` then N × `$len\r\nbytes\r\n`), written from
 * PROTOCOL.md §1.5 and sharing nothing with src/resp. Throws on any deviation.
 */
function parseCommands(bytes: Uint8Array): Buffer[][] {
  const buffer = Buffer.from(bytes);
  let pos = 0;
  const readLine = (type: string): number => {
    if (buffer.toString('latin1', pos, pos + 1) !== type) throw new Error(`expected ${type} at ${pos}`);
    const end = buffer.indexOf('\r\n', pos, 'latin1');
    const digits = buffer.toString('latin1', pos + 1, end);
    if (end < 0 || !/^(0|[1-9]\d*)$/.test(digits)) throw new Error(`bad length line at ${pos}`);
    pos = end + 2;
    return Number(digits);
  };
  const commands: Buffer[][] = [];
  while (pos < buffer.length) {
    const count = readLine('*');
    const args: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const length = readLine('$');
      args.push(Buffer.from(buffer.subarray(pos, pos + length)));
      if (buffer.toString('latin1', pos + length, pos + length + 2) !== '\r\n') throw new Error('no CRLF');
      pos += length + 2;
    }
    commands.push(args);
  }
  return commands;
}

/** The bytes an argument must arrive as; numbers are compared as text checked separately. */
function expectedBytes(arg: RespArgument): Buffer {
  return typeof arg === 'string' || typeof arg === 'bigint'
    ? Buffer.from(String(arg))
    : Buffer.from(arg as Uint8Array);
}

describe('encodeCommand: bytes', () => {
  it('frames a command as an array of bulk strings', () => {
    expect(encodedText(['GET', 'key:123'])).toBe('*2\r\n$3\r\nGET\r\n$7\r\nkey:123\r\n');
    expect(encodedText(['PING'])).toBe('*1\r\n$4\r\nPING\r\n');
  });

  it('writes an empty string or buffer as $0', () => {
    expect(encodedText(['SET', '', Buffer.alloc(0), new Uint8Array(0)])).toBe(
      '*4\r\n$3\r\nSET\r\n$0\r\n\r\n$0\r\n\r\n$0\r\n\r\n',
    );
  });

  it('counts UTF-8 bytes, not UTF-16 units', () => {
    expect(encodeCommand(['日本'])).toEqual(
      Buffer.concat([wire('*1\r\n$6\r\n'), Buffer.from('日本'), wire('\r\n')]),
    );
    expect(encodeCommand(['é'])).toEqual(wire('*1\r\n$2\r\n\xc3\xa9\r\n'));
    // An astral character is a surrogate pair in JavaScript and 4 bytes in UTF-8.
    expect(encodeCommand(['😀'])).toEqual(wire('*1\r\n$4\r\n\xf0\x9f\x98\x80\r\n'));
    const long = `${'ab'.repeat(20)}😀日本é`;
    expect(encodeCommand(['SET', long])).toEqual(
      Buffer.concat([wire('*2\r\n$3\r\nSET\r\n$52\r\n'), Buffer.from(long), wire('\r\n')]),
    );
  });

  it('writes a lone surrogate as U+FFFD (3 bytes) and counts it so, in short and long strings', () => {
    const replacement = '\xef\xbf\xbd';
    expect(encodeCommand(['\ud800'])).toEqual(wire(`*1\r\n$3\r\n${replacement}\r\n`));
    expect(encodeCommand(['a\udc00b'])).toEqual(wire(`*1\r\n$5\r\na${replacement}b\r\n`));
    expect(encodeCommand(['\ud83d\ud83d'])).toEqual(wire(`*1\r\n$6\r\n${replacement}${replacement}\r\n`));
    const long = `${'x'.repeat(40)}\ud800`;
    expect(encodeCommand([long])).toEqual(wire(`*1\r\n$43\r\n${'x'.repeat(40)}${replacement}\r\n`));
  });

  it('copies buffers and Uint8Array views byte for byte, CR and LF included', () => {
    const raw = Uint8Array.from([0x0d, 0x0a, 0x00, 0xff, 0x24]);
    expect(encodeCommand(['SET', raw])).toEqual(wire('*2\r\n$3\r\nSET\r\n$5\r\n\r\n\x00\xff$\r\n'));
    const backing = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 3, 20);
    expect(encodedText(['SET', view])).toBe('*2\r\n$3\r\nSET\r\n$20\r\n3456789abcdefghijklm\r\n');
  });

  it('writes multi-digit counts and lengths', () => {
    const args = Array.from({ length: 12 }, (_, i) => 'v'.repeat(i * 10));
    expect(parseCommands(encodeCommand(args))).toEqual([args.map((arg) => Buffer.from(arg))]);
    expect(encodedText(args).startsWith('*12\r\n$0\r\n\r\n$10\r\n')).toBe(true);
    const big = 'k'.repeat(100_000);
    expect(encodedText([big]).slice(0, 12)).toBe('*1\r\n$100000\r');
  });

  it('writes integers, bigints and other numbers as positional decimal text', () => {
    const cases: [RespArgument, string][] = [
      [0, '0'],
      [-0, '0'],
      [42, '42'],
      [-7, '-7'],
      [2147483647, '2147483647'],
      [-2147483648, '-2147483648'],
      [2147483648, '2147483648'],
      [-2147483649, '-2147483649'],
      [Number.MAX_SAFE_INTEGER, '9007199254740991'],
      [1.5, '1.5'],
      [-0.25, '-0.25'],
      [0.1, '0.1'],
      [1e20, '100000000000000000000'],
      [1e21, '1000000000000000000000'],
      [-1.5e22, '-15000000000000000000000'],
      [1.2345678901234567e30, '1234567890123456700000000000000'],
      [1e-7, '0.0000001'],
      [-1.5e-10, '-0.00000000015'],
      [5e-324, `0.${'0'.repeat(323)}5`],
      [0n, '0'],
      [-12345678901234567890n, '-12345678901234567890'],
    ];
    for (const [value, text] of cases) {
      expect(encodedText(['X', value]), String(value)).toBe(
        `*2\r\n$1\r\nX\r\n$${text.length}\r\n${text}\r\n`,
      );
    }
    expect(encodedText(['X', Number.MAX_VALUE])).toMatch(
      /^\*2\r\n\$1\r\nX\r\n\$309\r\n17976931348623157\d+\r\n$/,
    );
  });

  it('returns a buffer the caller owns: later commands do not change it', () => {
    const first = encodeCommand(['GET', 'a']);
    const copy = Buffer.from(first);
    for (let i = 0; i < 100; i++) encodeCommand(['SET', `k${i}`, 'v'.repeat(i)]);
    expect(first).toEqual(copy);
  });
});

describe('encodeCommand: argument errors', () => {
  const expected = 'expected a string, Uint8Array, finite number or bigint';
  const cases: [string, unknown[]][] = [
    ['argument 2 is NaN', ['SET', 'k', Number.NaN]],
    ['argument 1 is Infinity', ['X', Number.POSITIVE_INFINITY]],
    ['argument 1 is -Infinity', ['X', Number.NEGATIVE_INFINITY]],
    ['argument 0 is null', [null]],
    ['argument 1 is undefined', ['GET', undefined]],
    ['argument 1 is a boolean (true)', ['X', true]],
    ['argument 1 is a boolean (false)', ['X', false]],
    ['argument 1 is a symbol', ['X', Symbol('s')]],
    ['argument 1 is a function', ['X', () => 1]],
    ['argument 1 is an array', ['X', ['nested']]],
    ['argument 1 is an object', ['X', { toString: () => 'v' }]],
    ['argument 1 is an object', ['X', new Date(0)]],
    ['argument 1 is a typed array or DataView other than Uint8Array', ['X', new Uint16Array(2)]],
    [
      'argument 1 is a typed array or DataView other than Uint8Array',
      ['X', new DataView(new ArrayBuffer(2))],
    ],
    ['argument 1 is an ArrayBuffer (wrap it in a Uint8Array)', ['X', new ArrayBuffer(2)]],
  ];
  it.each(cases)('%s (0-based position)', (prefix, args) => {
    expect(() => encodeCommand(args as RespArgument[])).toThrow(new TypeError(`${prefix}: ${expected}`));
  });

  it('rejects an empty command and a non-array', () => {
    expect(() => encodeCommand([])).toThrow(
      new TypeError('a command needs at least one argument (its name), got an empty array'),
    );
    expect(() => encodeCommand('GET' as unknown as RespArgument[])).toThrow(
      new TypeError('a command must be an array of arguments'),
    );
  });

  it('names the first bad argument even after long valid ones', () => {
    const args = ['SET', 'x'.repeat(5000), Buffer.alloc(100), Number.NaN, null] as RespArgument[];
    expect(() => encodeCommand(args)).toThrow(/^argument 3 is NaN: /);
  });
});

describe('CommandEncoder', () => {
  const commands: RespArgument[][] = [
    ['GET', 'key:1'],
    ['SET', 'key:2', 'v'.repeat(100)],
    ['HSET', 'h', 'f', Buffer.from('\r\n'), 'n', 17],
    ['SET', '日本', 'é'.repeat(50)],
  ];
  const joined = Buffer.concat(commands.map((args) => encodeCommand(args)));

  it('appends commands and counts them; take returns exactly the pending bytes and resets', () => {
    const encoder = new CommandEncoder();
    expect([encoder.byteLength, encoder.commandCount, encoder.capacity]).toEqual([0, 0, 16 * 1024]);
    for (const args of commands) encoder.encode(args);
    expect([encoder.byteLength, encoder.commandCount]).toEqual([joined.length, commands.length]);
    const taken = encoder.take();
    expect(taken).toEqual(joined);
    expect([encoder.byteLength, encoder.commandCount]).toEqual([0, 0]);
    expect(encoder.take()).toEqual(Buffer.alloc(0));
  });

  it('writes short non-ASCII strings the same as encodeCommand, header growing from 1 to 2 digits', () => {
    const args = ['SET', '日本日本日本日本', 'é', '😀x', '\ud800', 'abc\udfff', 'ü'.repeat(32)];
    const encoder = new CommandEncoder();
    encoder.encode(args);
    const taken = encoder.take();
    expect(taken).toEqual(encodeCommand(args));
    expect(taken.toString('latin1')).toContain('$24\r\n');
    expect(parseCommands(taken)).toEqual([args.map((arg) => Buffer.from(arg))]);
  });

  it('grows by doubling and keeps earlier commands intact', () => {
    const encoder = new CommandEncoder({ initialCapacity: 64 });
    const capacities = new Set<number>();
    for (let round = 1; round <= 8; round++) {
      for (const args of commands) encoder.encode(args);
      // Doubling from 64: the smallest 64 × 2^k holding what is pending, or the next one when the
      // upper bound of the last command (3 bytes a unit for short strings) crossed the line.
      const expected = 64 * 2 ** Math.ceil(Math.log2(encoder.byteLength / 64));
      expect(encoder.capacity === expected || encoder.capacity === expected * 2).toBe(true);
      capacities.add(encoder.capacity);
    }
    expect(capacities.size).toBeGreaterThanOrEqual(3);
    expect(encoder.take()).toEqual(Buffer.concat(Array.from({ length: 8 }, () => joined)));
  });

  it('copies a small take and keeps its buffer; hands over a large one and allocates anew', () => {
    const encoder = new CommandEncoder({ initialCapacity: 1024 });
    encoder.encode(['SET', 'k', 'x'.repeat(100)]);
    const small = encoder.take();
    expect(small.buffer.byteLength).not.toBe(1024);
    encoder.encode(['SET', 'k', 'x'.repeat(600)]);
    const large = encoder.take();
    expect(large.length).toBe(encodeCommand(['SET', 'k', 'x'.repeat(600)]).length);
    expect(large.buffer.byteLength).toBe(1024);
    expect(encoder.capacity).toBe(1024);
  });

  it('shrinks back to the initial capacity after a take or clear above maxRetainedCapacity', () => {
    const encoder = new CommandEncoder({ initialCapacity: 64, maxRetainedCapacity: 4096 });
    encoder.encode(['SET', 'k', Buffer.alloc(3000, 1)]);
    expect(encoder.capacity).toBe(4096);
    encoder.take();
    expect(encoder.capacity).toBe(4096);
    encoder.encode(['SET', 'k', Buffer.alloc(5000, 2)]);
    expect(encoder.capacity).toBe(8192);
    const huge = encoder.take();
    expect(parseCommands(huge)[0]?.[2]).toEqual(Buffer.alloc(5000, 2));
    expect(encoder.capacity).toBe(64);
    encoder.encode(['SET', 'k', 'z'.repeat(6000)]);
    encoder.encode(['GET', 'k']);
    encoder.clear();
    expect([encoder.capacity, encoder.byteLength, encoder.commandCount]).toEqual([64, 0, 0]);
    encoder.encode(['GET', 'k']);
    expect(encoder.take()).toEqual(encodeCommand(['GET', 'k']));
  });

  it('gives the caller ownership: later encodes and argument changes do not alter taken bytes', () => {
    for (const initialCapacity of [64, 1 << 16]) {
      const encoder = new CommandEncoder({ initialCapacity });
      const value = Buffer.from('original-value-bytes');
      encoder.encode(['SET', 'k', value]);
      value.fill(0x21);
      const taken = encoder.take();
      const snapshot = Buffer.from(taken);
      expect(parseCommands(taken)[0]?.[2]?.toString()).toBe('original-value-bytes');
      for (let i = 0; i < 50; i++) encoder.encode(['SET', `other:${i}`, 'y'.repeat(40)]);
      encoder.take();
      encoder.encode(['DEL', 'zzz']);
      expect(taken).toEqual(snapshot);
    }
  });

  it('is all or nothing: a bad command leaves pending bytes and counts as they were', () => {
    const encoder = new CommandEncoder({ initialCapacity: 64 });
    encoder.encode(['GET', 'a']);
    const before = [encoder.byteLength, encoder.commandCount, encoder.capacity];
    expect(() => encoder.encode(['SET', 'x'.repeat(10_000), undefined as unknown as string])).toThrow(
      TypeError,
    );
    expect(() => encoder.encode([])).toThrow(TypeError);
    expect([encoder.byteLength, encoder.commandCount, encoder.capacity]).toEqual(before);
    encoder.encode(['GET', 'b']);
    expect(parseCommands(encoder.take())).toEqual([
      [wire('GET'), wire('a')],
      [wire('GET'), wire('b')],
    ]);
  });

  it('reads each argument once, so a Proxy cannot give the two passes different values', () => {
    let reads = 0;
    const shifty = () =>
      new Proxy(['SET', 'k', 'v'], {
        get: (target, key, receiver) => {
          if (key !== '2') return Reflect.get(target, key, receiver);
          reads++;
          return reads === 1 ? 'v' : 'a much longer value';
        },
      });
    const encoder = new CommandEncoder();
    encoder.encode(shifty());
    expect(reads).toBe(1);
    expect(encoder.take()).toEqual(encodeCommand(['SET', 'k', 'v']));
    reads = 0;
    expect(encodeCommand(shifty())).toEqual(encodeCommand(['SET', 'k', 'v']));
    expect(reads).toBe(1);
  });

  it('validates its options', () => {
    expect(() => new CommandEncoder({ initialCapacity: 8 })).toThrow(RespireConfigurationError);
    expect(() => new CommandEncoder({ initialCapacity: 1000.5 })).toThrow(
      'invalid option initialCapacity: 1000.5; allowed: an integer of at least 64 (bytes)',
    );
    expect(() => new CommandEncoder({ initialCapacity: 1024, maxRetainedCapacity: 512 })).toThrow(
      'invalid option maxRetainedCapacity: 512; allowed: an integer of at least 1024',
    );
    expect(new CommandEncoder({ initialCapacity: 2 << 20 }).capacity).toBe(2 << 20);
  });
});

/** Arguments of every kind, with strings across the short/long boundary and full Unicode. */
const argument: fc.Arbitrary<RespArgument> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 20, maxLength: 60 }),
  fc.uint8Array({ maxLength: 40 }),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt(),
);
const command = fc.array(argument, { minLength: 1, maxLength: 12 });

function checkNumberText(arg: RespArgument, bytes: Buffer): void {
  if (typeof arg !== 'number') return;
  const text = bytes.toString('latin1');
  expect(text).toMatch(/^-?\d+(\.\d+)?$/);
  expect(Number(text)).toBe(arg === 0 ? 0 : arg);
}

describe('properties', () => {
  it('an independent parser reads back every argument', () => {
    run(
      fc.property(command, (args) => {
        const [parsed] = parseCommands(encodeCommand(args));
        expect(parsed).toHaveLength(args.length);
        args.forEach((arg, i) => {
          if (typeof arg === 'number') checkNumberText(arg, parsed![i]!);
          else expect(parsed![i]).toEqual(expectedBytes(arg));
        });
      }),
      300,
    );
  });

  it('CommandEncoder output equals the concatenation of encodeCommand outputs', () => {
    run(
      fc.property(
        fc.array(command, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 64, max: 512 }),
        (commands, initialCapacity) => {
          const encoder = new CommandEncoder({ initialCapacity, maxRetainedCapacity: 1024 });
          const taken: Buffer[] = [];
          commands.forEach((args, i) => {
            encoder.encode(args);
            if (i % 3 === 2) taken.push(encoder.take());
          });
          taken.push(encoder.take());
          expect(Buffer.concat(taken)).toEqual(Buffer.concat(commands.map((args) => encodeCommand(args))));
        },
      ),
      200,
    );
  });

  it('RespDecoder reads the encoder output back as arrays of the argument bytes', () => {
    run(
      fc.property(fc.array(command, { minLength: 1, maxLength: 5 }), fc.nat(), (commands, cut) => {
        const replies: RespValue[] = [];
        const decoder = new RespDecoder({
          onReply: (value) => replies.push(value),
          onPush: () => {},
          returnBuffers: true,
        });
        const bytes = Buffer.concat(commands.map((args) => encodeCommand(args)));
        const at = cut % (bytes.length + 1);
        decoder.write(bytes.subarray(0, at));
        decoder.write(bytes.subarray(at));
        expect(replies).toHaveLength(commands.length);
        commands.forEach((args, c) => {
          const reply = replies[c] as Buffer[];
          args.forEach((arg, i) => {
            if (typeof arg === 'number') checkNumberText(arg, reply[i]!);
            else expect(reply[i]).toEqual(expectedBytes(arg));
          });
        });
      }),
      200,
    );
  });
});

describe('CommandEncoder: large arguments by reference', () => {
  const text = (chunks: readonly Uint8Array[]) =>
    chunks.map((chunk) => Buffer.from(chunk).toString('latin1'));

  it('references a Uint8Array from the threshold on, copies one below it, and splits chunks around it', () => {
    const encoder = new CommandEncoder({ largeArgumentBytes: 20 });
    const large = Buffer.alloc(20, 'L');
    const small = Buffer.alloc(19, 's');
    encoder.encode(['SET', 'a', large]);
    encoder.encode(['SET', 'b', small]);
    encoder.encode(['MSET', 'c', large, 'd', large]);
    const expected = Buffer.concat([
      encodeCommand(['SET', 'a', large]),
      encodeCommand(['SET', 'b', small]),
      encodeCommand(['MSET', 'c', large, 'd', large]),
    ]);
    expect([encoder.byteLength, encoder.commandCount]).toEqual([expected.length, 3]);
    const chunks = encoder.takeChunks().map(bytesOf);
    expect(text(chunks)).toEqual([
      '*3\r\n$3\r\nSET\r\n$1\r\na\r\n$20\r\n',
      'L'.repeat(20),
      `\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$19\r\n${'s'.repeat(19)}\r\n*5\r\n$4\r\nMSET\r\n$1\r\nc\r\n$20\r\n`,
      'L'.repeat(20),
      '\r\n$1\r\nd\r\n$20\r\n',
      'L'.repeat(20),
      '\r\n',
    ]);
    expect([chunks[1], chunks[3], chunks[5]]).toEqual([large, large, large]);
    expect(chunks[1]).toBe(large);
    expect(chunks[5]).toBe(large);
    expect(Buffer.concat(chunks)).toEqual(expected);
    expect([encoder.byteLength, encoder.commandCount, encoder.takeChunks().map(bytesOf)]).toEqual([0, 0, []]);
  });

  it('references a plain Uint8Array view as a Buffer over the same memory, without a copy', () => {
    const backing = new Uint8Array(100).fill(0x61);
    const view = new Uint8Array(backing.buffer, 10, 50);
    const encoder = new CommandEncoder({ largeArgumentBytes: 50 });
    encoder.encode(['SET', 'k', view]);
    const chunks = encoder.takeChunks().map(bytesOf);
    expect(chunks).toHaveLength(3);
    expect(Buffer.isBuffer(chunks[1])).toBe(true);
    expect(sharesMemoryOf(chunks[1]!, view)).toBe(true);
    // The contract's other side: a referenced argument changed before the write changes the bytes.
    view.fill(0x62);
    expect(chunks[1]!.toString('latin1')).toBe('b'.repeat(50));
  });

  it('counts referenced bytes in byteLength and joins everything in take()', () => {
    const encoder = new CommandEncoder();
    const value = Buffer.alloc(100 * 1024, 7);
    encoder.encode(['SET', 'k', value]);
    encoder.encode(['GET', 'k']);
    const expected = Buffer.concat([encodeCommand(['SET', 'k', value]), encodeCommand(['GET', 'k'])]);
    expect(encoder.byteLength).toBe(expected.length);
    const taken = encoder.take();
    expect(taken).toEqual(expected);
    // Joined into a Buffer of its own: a later change to the argument does not reach it.
    value.fill(8);
    expect(parseCommands(taken)[0]?.[2]).toEqual(Buffer.alloc(100 * 1024, 7));
  });

  it('defaults to 16 KiB and copies everything with Infinity or copyArguments', () => {
    const atDefault = Buffer.alloc(16 * 1024, 1);
    const belowDefault = Buffer.alloc(16 * 1024 - 1, 2);
    const byDefault = new CommandEncoder();
    byDefault.encode(['SET', 'k', belowDefault]);
    expect(byDefault.takeChunks().map(bytesOf)).toHaveLength(1);
    byDefault.encode(['SET', 'k', atDefault]);
    expect(byDefault.takeChunks().map(bytesOf)).toHaveLength(3);
    byDefault.encode(['SET', 'k', atDefault], true);
    const copied = byDefault.takeChunks().map(bytesOf);
    expect(copied).toHaveLength(1);
    atDefault.fill(9);
    expect(parseCommands(copied[0]!)[0]?.[2]).toEqual(Buffer.alloc(16 * 1024, 1));
    const never = new CommandEncoder({ largeArgumentBytes: Number.POSITIVE_INFINITY });
    never.encode(['SET', 'k', Buffer.alloc(1 << 20)]);
    expect(never.takeChunks().map(bytesOf)).toHaveLength(1);
  });

  it('encodeCommand always copies, however large the argument', () => {
    const value = Buffer.alloc(64 * 1024, 3);
    const encoded = encodeCommand(['SET', 'k', value]);
    value.fill(4);
    expect(parseCommands(encoded)[0]?.[2]).toEqual(Buffer.alloc(64 * 1024, 3));
  });

  it('is all or nothing with a large argument before the bad one: nothing sealed, nothing referenced', () => {
    const encoder = new CommandEncoder({ largeArgumentBytes: 16 });
    encoder.encode(['GET', 'a']);
    const before = [encoder.byteLength, encoder.commandCount, encoder.capacity];
    expect(() => encoder.encode(['SET', Buffer.alloc(64), Number.NaN])).toThrow(/^argument 2 is NaN: /);
    expect([encoder.byteLength, encoder.commandCount, encoder.capacity]).toEqual(before);
    expect(text(encoder.takeChunks().map(bytesOf))).toEqual(['*2\r\n$3\r\nGET\r\n$1\r\na\r\n']);
  });

  it('seals the tail in place when a command does not fit after sealed bytes, keeping the capacity', () => {
    const encoder = new CommandEncoder({ initialCapacity: 128, largeArgumentBytes: 32 });
    const value = Buffer.alloc(32, 'v');
    encoder.encode(['SET', 'k', value]);
    encoder.encode(['SET', 'x', 'y'.repeat(10)]);
    // 64 bytes are written (25 sealed) and the next SET's upper bound is 67: it needs a new buffer,
    // and as the old one holds sealed bytes, the tail is sealed where it is instead of moved.
    encoder.encode(['SET', 'z', 'w'.repeat(10)]);
    expect(encoder.capacity).toBe(128);
    const chunks = encoder.takeChunks().map(bytesOf);
    expect(text(chunks)).toEqual([
      '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$32\r\n',
      'v'.repeat(32),
      `\r\n*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$10\r\n${'y'.repeat(10)}\r\n`,
      `*3\r\n$3\r\nSET\r\n$1\r\nz\r\n$10\r\n${'w'.repeat(10)}\r\n`,
    ]);
    expect(chunks[0]!.buffer).toBe(chunks[2]!.buffer);
    expect(chunks[3]!.buffer).not.toBe(chunks[0]!.buffer);
    // After bytes were handed out, a command larger than the buffer doubles it only as far as the
    // command itself needs (a 240-byte bound: 256), not counting the bytes handed out.
    encoder.encode(['SET', 'big', 'b'.repeat(200)]);
    expect(encoder.capacity).toBe(256);
    expect(encoder.take()).toEqual(encodeCommand(['SET', 'big', 'b'.repeat(200)]));
  });

  it('doubles and copies over while nothing is sealed, as before', () => {
    const encoder = new CommandEncoder({ initialCapacity: 64, largeArgumentBytes: 1000 });
    encoder.encode(['SET', 'x', 'y'.repeat(10)]);
    encoder.encode(['SET', 'z', 'w'.repeat(10)]);
    expect(encoder.capacity).toBe(128);
    expect(encoder.takeChunks().map(bytesOf)).toHaveLength(1);
  });

  it('goes on after the bytes takeChunks() handed out, never writing over them', () => {
    const encoder = new CommandEncoder({ initialCapacity: 256 });
    encoder.encode(['GET', 'first']);
    const [first] = encoder.takeChunks().map(bytesOf);
    const snapshot = Buffer.from(first!);
    encoder.encode(['GET', 'second']);
    const [second] = encoder.takeChunks().map(bytesOf);
    // Handed over without a copy, from the same internal buffer, after the first.
    expect(second!.buffer).toBe(first!.buffer);
    expect(second!.byteOffset).toBe(first!.byteOffset + first!.length);
    // take() keeps its copy rule, and its rewind stops at the handed-out bytes.
    encoder.encode(['SET', 'k', 'v'.repeat(20)]);
    const copied = encoder.take();
    expect(copied.buffer).not.toBe(first!.buffer);
    encoder.clear();
    for (let i = 0; i < 20; i++) encoder.encode(['SET', `key:${i}`, 'z'.repeat(30)]);
    encoder.take();
    expect(first).toEqual(snapshot);
    expect(second!.toString('latin1')).toBe('*2\r\n$3\r\nGET\r\n$6\r\nsecond\r\n');
  });

  it('moves a small pending tail to a new buffer after handed-out bytes, so the next take is one chunk', () => {
    const encoder = new CommandEncoder({ initialCapacity: 128 });
    encoder.encode(['GET', 'a'.repeat(40)]);
    const [handed] = encoder.takeChunks().map(bytesOf);
    const snapshot = Buffer.from(handed!);
    // 60 of 128 bytes handed out; GET b fits after them, the second GET's upper bound does not.
    encoder.encode(['GET', 'b']);
    encoder.encode(['GET', 'c'.repeat(20)]);
    const chunks = encoder.takeChunks().map(bytesOf);
    expect(text(chunks)).toEqual([
      `*2\r\n$3\r\nGET\r\n$1\r\nb\r\n*2\r\n$3\r\nGET\r\n$20\r\n${'c'.repeat(20)}\r\n`,
    ]);
    expect(chunks[0]!.buffer).not.toBe(handed!.buffer);
    expect(encoder.capacity).toBe(128);
    expect(handed).toEqual(snapshot);
  });

  it('take() after referenced chunks reuses the internal buffer, whose sealed bytes are free again', () => {
    const encoder = new CommandEncoder({ initialCapacity: 1024, largeArgumentBytes: 64 });
    const value = Buffer.alloc(64, 'q');
    encoder.encode(['SET', 'k', value]);
    const joined = encoder.take();
    expect(joined).toEqual(encodeCommand(['SET', 'k', value]));
    expect(joined.buffer).not.toBe(value.buffer);
    // Large enough to be handed over: it starts at offset 0 of the same 1024-byte buffer.
    encoder.encode(['SET', 'k', 'x'.repeat(600)]);
    const handed = encoder.take();
    expect([handed.byteOffset, handed.buffer.byteLength, encoder.capacity]).toEqual([0, 1024, 1024]);
    expect(joined).toEqual(encodeCommand(['SET', 'k', value]));
  });

  it('shrinks after takeChunks() above maxRetainedCapacity, leaving handed-out chunks intact', () => {
    const encoder = new CommandEncoder({
      initialCapacity: 64,
      maxRetainedCapacity: 128,
      largeArgumentBytes: 16,
    });
    for (let i = 0; i < 10; i++) encoder.encode(['SET', `k${i}`, 'v'.repeat(20)]);
    expect(encoder.capacity).toBeGreaterThan(128);
    const chunks = encoder.takeChunks().map(bytesOf);
    const snapshot = chunks.map((chunk) => Buffer.from(chunk));
    expect(encoder.capacity).toBe(64);
    for (let i = 0; i < 10; i++) encoder.encode(['SET', `j${i}`, Buffer.alloc(16, i)]);
    encoder.take();
    expect(chunks).toEqual(snapshot);
  });

  it('clear() drops referenced chunks and sealed bytes', () => {
    const encoder = new CommandEncoder({ largeArgumentBytes: 8 });
    encoder.encode(['SET', 'k', Buffer.alloc(8)]);
    encoder.clear();
    expect([encoder.byteLength, encoder.commandCount]).toEqual([0, 0]);
    encoder.encode(['GET', 'k']);
    expect(encoder.takeChunks().map(bytesOf)).toEqual([encodeCommand(['GET', 'k'])]);
  });

  it('validates largeArgumentBytes', () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY, 2 ** 53]) {
      expect(() => new CommandEncoder({ largeArgumentBytes: value })).toThrow(
        new RespireConfigurationError(
          'largeArgumentBytes',
          value,
          'an integer of at least 1 (bytes), or Infinity',
        ),
      );
    }
    expect(() => new CommandEncoder({ largeArgumentBytes: 1 })).not.toThrow();
  });
});

/** A command with Uint8Arrays of every size around small thresholds, as Buffers and plain views. */
const mixedArgument: fc.Arbitrary<RespArgument> = fc.oneof(
  argument,
  fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 90 }), fc.nat(), fc.nat()).map(([bytes, a, b]) => {
    const offset = a % bytes.length;
    return new Uint8Array(bytes.buffer, bytes.byteOffset + offset, b % (bytes.length - offset + 1));
  }),
);
type Step =
  | { kind: 'encode'; args: RespArgument[]; copy: boolean }
  | { kind: 'take' }
  | { kind: 'takeChunks' }
  | { kind: 'clear' };
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('encode' as const),
      args: fc.array(mixedArgument, { minLength: 1, maxLength: 8 }),
      copy: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'take' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'takeChunks' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);
const encoderOptions = fc.record({
  initialCapacity: fc.integer({ min: 64, max: 512 }),
  maxRetainedCapacity: fc.integer({ min: 512, max: 2048 }),
  largeArgumentBytes: fc.integer({ min: 1, max: 64 }),
});

describe('properties with large arguments', () => {
  it('takeChunks() gives the exact bytes, references exactly the large arguments, never rewrites output', () => {
    run(
      fc.property(encoderOptions, fc.array(step, { minLength: 1, maxLength: 40 }), (options, steps) => {
        const encoder = new CommandEncoder(options);
        let expected: Buffer[] = [];
        let large: Uint8Array[] = [];
        const returned: { output: Uint8Array; snapshot: Buffer }[] = [];
        const keep = (output: Uint8Array) => returned.push({ output, snapshot: Buffer.from(output) });
        for (const s of [...steps, { kind: 'takeChunks' } as const]) {
          if (s.kind === 'encode') {
            encoder.encode(s.args, s.copy);
            expected.push(encodeCommand(s.args));
            if (!s.copy) {
              for (const arg of s.args) {
                if (arg instanceof Uint8Array && arg.length >= options.largeArgumentBytes) large.push(arg);
              }
            }
          } else if (s.kind === 'clear') {
            encoder.clear();
            [expected, large] = [[], []];
          } else {
            const want = Buffer.concat(expected);
            expect(encoder.byteLength).toBe(want.length);
            expect(encoder.commandCount).toBe(expected.length);
            if (s.kind === 'take') {
              const taken = encoder.take();
              expect(taken).toEqual(want);
              keep(taken);
            } else {
              const chunks = encoder.takeChunks().map(bytesOf);
              expect(Buffer.concat(chunks)).toEqual(want);
              expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
              // In order: the n-th large argument is the n-th chunk that shares an argument's memory.
              const referenced = chunks.filter((chunk) => large.some((arg) => sharesMemoryOf(chunk, arg)));
              expect(referenced).toHaveLength(large.length);
              referenced.forEach((chunk, i) => {
                expect(sharesMemoryOf(chunk, large[i]!)).toBe(true);
              });
              chunks.forEach(keep);
            }
            [expected, large] = [[], []];
          }
          // Nothing already returned is ever written again, whatever the encoder does next.
          for (const { output, snapshot } of returned) expect(Buffer.from(output)).toEqual(snapshot);
        }
        expect([encoder.byteLength, encoder.commandCount]).toEqual([0, 0]);
      }),
      200,
    );
  });

  it('take() equals the concatenation of takeChunks() for the same commands', () => {
    run(
      fc.property(encoderOptions, fc.array(step, { minLength: 1, maxLength: 40 }), (options, steps) => {
        const joining = new CommandEncoder(options);
        const chunking = new CommandEncoder(options);
        for (const s of [...steps, { kind: 'take' } as const]) {
          if (s.kind === 'encode') {
            joining.encode(s.args, s.copy);
            chunking.encode(s.args, s.copy);
          } else if (s.kind === 'clear') {
            joining.clear();
            chunking.clear();
          } else {
            expect(chunking.byteLength).toBe(joining.byteLength);
            expect(Buffer.concat(chunking.takeChunks().map(bytesOf))).toEqual(joining.take());
          }
        }
      }),
      200,
    );
  });
});

/** Whether `chunk` is `arg`'s own memory rather than a copy of it. */
function sharesMemoryOf(chunk: Uint8Array, arg: Uint8Array): boolean {
  return chunk.buffer === arg.buffer && chunk.byteOffset === arg.byteOffset && chunk.length === arg.length;
}

describe('CommandEncoder: large ASCII strings by reference', () => {
  /** `units` ASCII characters as one flat string, varying so that a shifted byte shows. */
  const ascii = (units: number) =>
    Buffer.from(Array.from({ length: units }, (_, i) => 97 + (i % 26))).toString('latin1');

  it('references an ASCII string from 8 Ki units as a string chunk, and copies one below', () => {
    const encoder = new CommandEncoder();
    const large = ascii(8 * 1024);
    const small = ascii(8 * 1024 - 1);
    encoder.encode(['SET', 'a', large]);
    encoder.encode(['SET', 'b', small]);
    const expected = Buffer.concat([encodeCommand(['SET', 'a', large]), encodeCommand(['SET', 'b', small])]);
    expect(encoder.byteLength).toBe(expected.length);
    const chunks = encoder.takeChunks();
    // Only the large one is a string chunk; the small one was copied into the encoder's buffer.
    expect(chunks[1]).toBe(large);
    expect(chunks.filter((chunk) => typeof chunk === 'string')).toEqual([large]);
    expect(Buffer.concat(chunks.map(bytesOf))).toEqual(expected);
  });

  it('references strings in copyArguments commands too, as strings cannot change', () => {
    const encoder = new CommandEncoder();
    const large = ascii(20_000);
    encoder.encode(['SET', 'a', large], true);
    const chunks = encoder.takeChunks();
    expect(chunks[1]).toBe(large);
    expect(Buffer.concat(chunks.map(bytesOf))).toEqual(encodeCommand(['SET', 'a', large]));
  });

  it('writes lengths across a decimal-digit boundary (99,999 and 100,000 bytes) exactly', () => {
    for (const units of [9_999, 10_000, 99_999, 100_000]) {
      const encoder = new CommandEncoder();
      const value = ascii(units);
      encoder.encode(['SET', 'k', value]);
      const joined = Buffer.concat(encoder.takeChunks().map(bytesOf));
      expect(joined).toEqual(encodeCommand(['SET', 'k', value]));
      expect(joined.subarray(0, 22).toString('latin1')).toBe(
        `*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$${units}`.slice(0, 22),
      );
      expect(parseCommands(joined)[0]?.[2]).toEqual(Buffer.from(value, 'latin1'));
    }
  });

  it('copies large strings that are not ASCII, as UTF-8 with a byte-length header', () => {
    const cases = [
      // Byte length 100,000 from 99,998 units: the header's digits differ from the unit count's.
      `${ascii(99_997)}€`,
      // Latin-1 but not ASCII: one byte a unit in Latin-1, two in UTF-8.
      'é'.repeat(20_000),
      // A surrogate pair (4 bytes) and lone surrogates (U+FFFD, 3 bytes each).
      `${ascii(30_000)}😀\ud800x\udc00${ascii(30_000)}`,
      `\udfff${ascii(40_000)}\ud83d`,
    ];
    for (const value of cases) {
      const encoder = new CommandEncoder();
      encoder.encode(['SET', 'k', value]);
      const chunks = encoder.takeChunks();
      expect(chunks.every((chunk) => typeof chunk !== 'string')).toBe(true);
      const joined = Buffer.concat(chunks.map(bytesOf));
      expect(joined).toEqual(encodeCommand(['SET', 'k', value]));
      expect(parseCommands(joined)[0]?.[2]).toEqual(Buffer.from(value, 'utf8'));
    }
    expect(Buffer.byteLength(cases[0]!)).toBe(100_000);
    expect(cases[0]!.length).toBe(99_998);
  });

  it('joins string chunks in take(), between Buffers referenced and copied', () => {
    const encoder = new CommandEncoder({ largeArgumentBytes: 32 });
    const text = ascii(50_000);
    const bytes = Buffer.alloc(40, 'B');
    encoder.encode(['MSET', 'a', text, 'b', bytes, 'c', 'short']);
    encoder.encode(['SET', 'd', text]);
    expect(encoder.take()).toEqual(
      Buffer.concat([
        encodeCommand(['MSET', 'a', text, 'b', bytes, 'c', 'short']),
        encodeCommand(['SET', 'd', text]),
      ]),
    );
    expect(encoder.byteLength).toBe(0);
  });

  it('encodeCommand copies a large ASCII string into its one Buffer', () => {
    const value = ascii(70_000);
    const encoded = encodeCommand(['SET', 'k', value]);
    expect(parseCommands(encoded)[0]?.[2]).toEqual(Buffer.from(value, 'latin1'));
  });
});
