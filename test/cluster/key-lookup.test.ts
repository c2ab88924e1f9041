// KeyLookup (key-lookup.ts) with a scripted sender standing in for a primary: the keys of commands
// the table does not know. A module command whose key specs are `unknown` (keys found by its own
// code) cannot come from Redis 7.0's built-in commands, hence no real server here; the real-cluster
// side is test/regressions/cluster-unknown-command-keys.test.ts.
import { describe, expect, it } from 'vitest';
import { ANY_SLOT, CROSS_SLOT } from '../../src/cluster/command-slot.js';
import { KeyLookup, NAMES_KEPT } from '../../src/cluster/key-lookup.js';
import { keySlot } from '../../src/cluster/key-slot.js';
import type { RespArgument } from '../../src/resp/encoder.js';
import type { RespValue } from '../../src/resp/types.js';

const UNKNOWN = ['type', 'unknown', 'spec', []];
/** A COMMAND INFO entry; `keySpec` 'first' = one key at index 1, 'unknown' = keys the module finds. */
function info(name: string, keySpec: 'first' | 'unknown'): RespValue {
  const spec =
    keySpec === 'first'
      ? [
          'flags',
          ['RW'],
          'begin_search',
          ['type', 'index', 'spec', ['index', 1]],
          'find_keys',
          ['type', 'range', 'spec', ['lastkey', 0, 'keystep', 1, 'limit', 0]],
        ]
      : ['flags', ['RW'], 'begin_search', UNKNOWN, 'find_keys', UNKNOWN];
  return [name, -2, ['write', 'movablekeys'], 0, 0, 0, ['@write'], [], [spec], []];
}

/** A sender answering COMMAND INFO from `known` and COMMAND GETKEYS with `getkeys`; records every call. */
function scripted(
  known: Record<string, RespValue>,
  getkeys: (args: readonly RespArgument[]) => RespValue = () => [],
) {
  const calls: string[] = [];
  const lookup = new KeyLookup(async (args) => {
    calls.push(args.slice(0, 3).map(String).join(' '));
    if (args[1] === 'INFO') return [known[String(args[2])] ?? null];
    return getkeys(args.slice(2));
  });
  return { lookup, calls };
}

describe('KeyLookup', () => {
  it('asks COMMAND INFO once per name, then routes by the server’s specs at once', async () => {
    const { lookup, calls } = scripted({ 'mod.put': info('mod.put', 'first') });
    expect(lookup.slotNow(['MOD.PUT', 'k1', 'v'])).toBeUndefined();
    expect(await lookup.slotOf(['MOD.PUT', 'k1', 'v'])).toBe(keySlot('k1'));
    expect(lookup.slotNow(['mod.put', 'k2', 'v'])).toBe(keySlot('k2'));
    expect(await lookup.slotOf(['MOD.PUT', 'k3', 'v'])).toBe(keySlot('k3'));
    expect(calls).toEqual(['COMMAND INFO mod.put']);
  });

  it('asks COMMAND GETKEYS per call when the server’s specs are unknown', async () => {
    const { lookup, calls } = scripted(
      { 'mod.merge': info('mod.merge', 'unknown') },
      (args) => args.slice(1).filter((arg) => String(arg).includes('}')) as RespValue[],
    );
    expect(await lookup.slotOf(['MOD.MERGE', '{t}a', 'x', '{t}b'])).toBe(keySlot('{t}'));
    expect(await lookup.slotOf(['MOD.MERGE', '{u}a', 'x', '{v}b'])).toBe(CROSS_SLOT);
    expect(lookup.slotNow(['MOD.MERGE', '{t}a'])).toBeUndefined();
    expect(calls).toEqual([
      'COMMAND INFO mod.merge',
      'COMMAND GETKEYS MOD.MERGE',
      'COMMAND GETKEYS MOD.MERGE',
    ]);
  });

  it('keeps a name the server does not know (ANY_SLOT), and asks again after a failed lookup', async () => {
    const { lookup, calls } = scripted({});
    expect(await lookup.slotOf(['NOPE', 'k'])).toBe(ANY_SLOT);
    expect(lookup.slotNow(['NOPE', 'k'])).toBe(ANY_SLOT);
    let fail = true;
    const flaky = new KeyLookup(async () => {
      if (fail) throw new Error('no answer');
      return [info('mod.put', 'first')];
    });
    expect(await flaky.slotOf(['MOD.PUT', 'k'])).toBe(ANY_SLOT);
    expect(flaky.slotNow(['MOD.PUT', 'k'])).toBeUndefined();
    fail = false;
    expect(await flaky.slotOf(['MOD.PUT', 'k'])).toBe(keySlot('k'));
    expect(calls).toEqual(['COMMAND INFO nope']);
  });

  it('keeps at most NAMES_KEPT names, dropping the oldest', async () => {
    const known: Record<string, RespValue> = {};
    for (let i = 0; i <= NAMES_KEPT; i++) known[`m.${i}`] = info(`m.${i}`, 'first');
    const { lookup } = scripted(known);
    for (let i = 0; i <= NAMES_KEPT; i++) await lookup.slotOf([`m.${i}`, 'k']);
    expect(lookup.slotNow(['m.0', 'k'])).toBeUndefined();
    expect(lookup.slotNow(['m.1', 'k'])).toBe(keySlot('k'));
    expect(lookup.slotNow([`m.${NAMES_KEPT}`, 'k'])).toBe(keySlot('k'));
  });
});
