// The cursor loop and reply parsing of src/client/scan.ts, with a scripted caller instead of a
// server: pages are fetched one at a time, only after the previous one is used up.
import { describe, expect, it } from 'vitest';
import type { CommandCaller } from '../../src/client/commands/caller.js';
import { asDouble as parseScore } from '../../src/client/commands/reply.js';
import { scanCommands } from '../../src/client/commands/scan.js';
import { scanArguments, scanReply } from '../../src/client/scan.js';
import type { RespArgument } from '../../src/resp/encoder.js';
import type { RespValue } from '../../src/resp/types.js';
import type { CommandOptions, ReplyTransform } from '../../src/transport/command.js';

/** Answers SCAN calls from a list of pages and records what was asked. */
class ScriptedCaller implements CommandCaller {
  readonly calls: { args: RespArgument[]; options: CommandOptions | undefined }[] = [];
  constructor(private readonly pages: RespValue[]) {}

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
  ) {
    this.calls.push({ args, options });
    const reply = this.pages[this.calls.length - 1]!;
    return Promise.resolve(transform === undefined ? (reply as T) : transform(reply));
  }
}

const commands = (caller: CommandCaller) => ({
  scanIterator: scanCommands.scanIterator.bind(caller),
  zscanIterator: scanCommands.zscanIterator.bind(caller),
});

describe('SCAN cursor loop', () => {
  it('asks for the next page only when the previous one is used up', async () => {
    const caller = new ScriptedCaller([
      ['17', ['a', 'b']],
      ['18446744073709551615', []],
      ['0', ['c']],
    ]);
    const iterator = commands(caller).scanIterator({ match: 'x*', count: 2, type: 'string' });
    expect(caller.calls).toHaveLength(0);
    expect(await iterator.next()).toEqual({ done: false, value: 'a' });
    expect(caller.calls).toHaveLength(1);
    expect(await iterator.next()).toEqual({ done: false, value: 'b' });
    expect(caller.calls).toHaveLength(1);
    expect(await iterator.next()).toEqual({ done: false, value: 'c' });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(caller.calls.map((call) => call.args)).toEqual([
      ['SCAN', '0', 'MATCH', 'x*', 'COUNT', 2, 'TYPE', 'string'],
      ['SCAN', '17', 'MATCH', 'x*', 'COUNT', 2, 'TYPE', 'string'],
      // A cursor beyond 2^53 goes back exactly as the server wrote it.
      ['SCAN', '18446744073709551615', 'MATCH', 'x*', 'COUNT', 2, 'TYPE', 'string'],
    ]);
  });

  it('passes the signal to each call and stops between items once aborted', async () => {
    const controller = new AbortController();
    const caller = new ScriptedCaller([
      ['5', ['m', '1', 'n', '2']],
      ['0', ['o', '3']],
    ]);
    const iterator = commands(caller).zscanIterator('z', { signal: controller.signal });
    expect(await iterator.next()).toEqual({ done: false, value: ['m', 1] });
    expect(caller.calls[0]!.options?.signal).toBe(controller.signal);
    controller.abort(new Error('halt'));
    await expect(iterator.next()).rejects.toThrow('halt');
    expect(caller.calls).toHaveLength(1);
  });

  // ZSCAN scores go through commands/reply.ts asDouble, checked here on the forms ZSCAN sends.
  it('parses replies and scores, and rejects shapes it does not know', () => {
    expect(scanReply([Buffer.from('3'), ['k']])).toEqual({ cursor: '3', elements: ['k'] });
    expect(() => scanReply(['0'])).toThrow(TypeError);
    expect(() => scanReply(['0', 'k'])).toThrow(TypeError);
    expect(parseScore('inf')).toBe(Number.POSITIVE_INFINITY);
    expect(parseScore('+inf')).toBe(Number.POSITIVE_INFINITY);
    expect(parseScore('-inf')).toBe(Number.NEGATIVE_INFINITY);
    expect(parseScore('1e-5')).toBe(0.00001);
    expect(parseScore(2.5)).toBe(2.5);
    expect(() => parseScore('abc')).toThrow(TypeError);
    expect(() => parseScore('')).toThrow(TypeError);
    expect(scanArguments(['SSCAN', 'k'], 12n, undefined)).toEqual(['SSCAN', 'k', '12']);
  });
});
