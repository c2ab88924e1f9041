// The router's slot of a command (command-slot.ts specSlot, split-command.ts slotOrSplit) against
// the plain reading (commandKeys, then each key's slot): the allocation-free fast path for one key
// at a fixed index and the one-pass split must answer the same for every command of the table.
import { describe, expect, it } from 'vitest';
import { commandKeys } from '../../src/client/command-keys.js';
import { commandSpecOf, commandTable } from '../../src/client/command-table.js';
import { ANY_SLOT, CROSS_SLOT, commandSlot, slotOfArguments } from '../../src/cluster/command-slot.js';
import { keySlot } from '../../src/cluster/key-slot.js';
import { slotOrSplit } from '../../src/cluster/split-command.js';
import type { RespArgument } from '../../src/resp/encoder.js';

/** The reading before the fast path: key indexes, then their shared slot. */
function plainSlot(args: readonly RespArgument[]): number {
  const keys = commandKeys(args, { includeNotKeys: true });
  if (keys === undefined || keys.length === 0) return ANY_SLOT;
  return slotOfArguments(args, keys);
}

describe('commandSlot', () => {
  it('agrees with the key indexes for every command and subcommand, well formed or not', () => {
    let compared = 0;
    for (const spec of commandTable().values()) {
      for (const sub of spec.subcommands?.values() ?? [spec]) {
        const words = sub.name.split('|');
        for (let length = 1; length <= Math.abs(sub.arity) + 3; length++) {
          const rest = Math.max(0, length - words.length);
          for (const filler of [(i: number) => `k${i}`, (i: number) => (i % 2 === 0 ? '1' : `{t}${i}`)]) {
            const args = [...words, ...Array.from({ length: rest }, (_, i) => filler(i))];
            expect(commandSlot(args), args.join(' ')).toBe(plainSlot(args));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

describe('slotOrSplit', () => {
  const spec = (name: string) => commandSpecOf([name])!;

  it('gives the shared slot of keys in one slot, and nothing for other commands', () => {
    expect(slotOrSplit(spec('mget'), ['MGET', '{a}1', '{a}2'])).toBe(keySlot('a'));
    expect(slotOrSplit(spec('get'), ['GET', 'k'])).toBeUndefined();
    expect(slotOrSplit(spec('mset'), ['MSET', 'k', 'v', 'dangling'])).toBeUndefined();
    expect(slotOrSplit(spec('del'), ['DEL'])).toBeUndefined();
  });

  it('splits keys of several slots in order of first appearance, keys in argument order', () => {
    const split = slotOrSplit(spec('mset'), [
      'MSET',
      '{a}1',
      'x',
      '{a}2',
      'y',
      '{b}1',
      'z',
      '{a}3',
      'w',
      '{c}1',
      'u',
    ]);
    if (split === undefined || typeof split === 'number') throw new Error('expected a split');
    expect(split.parts.map((part) => [part.slot, part.args, part.keyNumbers])).toEqual([
      [keySlot('a'), ['MSET', '{a}1', 'x', '{a}2', 'y', '{a}3', 'w'], [0, 1, 3]],
      [keySlot('b'), ['MSET', '{b}1', 'z'], [2]],
      [keySlot('c'), ['MSET', '{c}1', 'u'], [4]],
    ]);
    const mget = slotOrSplit(spec('mget'), ['MGET', '{b}1', '{a}1', '{b}2']);
    if (mget === undefined || typeof mget === 'number') throw new Error('expected a split');
    expect(mget.join([['B1', 'B2'], ['A1']])).toEqual(['B1', 'A1', 'B2']);
    expect(plainSlot(['MGET', '{b}1', '{a}1'])).toBe(CROSS_SLOT);
  });
});
