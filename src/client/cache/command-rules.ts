// What the client-side cache does with a command (issue 13, PROTOCOL.md §4 "Cache only read-only
// single-key commands"), decided from the command table once per command name as the caller
// spelled it, so the hit path costs one Map lookup.
import type { RespArgument } from '../../resp/encoder.js';
import { commandKeys } from '../command-keys.js';
import { type CommandSpec, commandSpecOf } from '../command-table.js';

export const CommandRule = {
  /** A read-only single-key command whose reply may be cached: the key is argument 1. */
  Cacheable: 0,
  /** Reads without writing: nothing to do. */
  Read: 1,
  /** May write its keys (found per call): they are invalidated locally when it is sent. */
  WritesKeys: 2,
} as const;
export type CommandRule = (typeof CommandRule)[keyof typeof CommandRule];

const rules = new Map<string, CommandRule>();

/** The rule of `args[0]`, memoised by the name as given (`GET` and `get` are two rows). */
export function commandRule(args: readonly RespArgument[]): CommandRule {
  const name = args[0];
  const known = typeof name === 'string' ? rules.get(name) : undefined;
  if (known !== undefined) return known;
  const spec = commandSpecOf(args);
  const rule = ruleOf(spec);
  // Plain commands the table knows are memoised (a container's rule is its subcommand's), so
  // garbage names cannot grow the map.
  if (typeof name === 'string' && spec !== undefined && !spec.name.includes('|') && rules.size < 4096) {
    rules.set(name, rule);
  }
  return rule;
}

/** Unknown commands (modules) may write anything: treated as writes whose keys cannot be found. */
function ruleOf(spec: CommandSpec | undefined): CommandRule {
  if (spec === undefined) return CommandRule.WritesKeys;
  // A container named without its subcommand is refused by the server.
  if (spec.subcommands !== undefined) return CommandRule.Read;
  if (spec.flags.has('readonly')) return isCacheable(spec) ? CommandRule.Cacheable : CommandRule.Read;
  return mayWriteKeys(spec) ? CommandRule.WritesKeys : CommandRule.Read;
}

/**
 * One key, at argument 1, found by a plain index spec; deterministic output (set and hash order
 * may vary, but a reply stays a true reply until the key changes; TTL, random members, SCAN
 * cursors and DUMP do not); never blocking.
 */
function isCacheable(spec: CommandSpec): boolean {
  if (spec.firstKey !== 1 || spec.lastKey !== 1 || spec.keySpecs.length !== 1) return false;
  if (spec.flags.has('movablekeys') || spec.flags.has('blocking')) return false;
  const [keySpec] = spec.keySpecs;
  if (keySpec!.beginSearch.type !== 'index' || keySpec!.beginSearch.index !== 1) return false;
  return !spec.tips.includes('nondeterministic_output');
}

/**
 * Flagged `write` (FLUSHALL and SWAPDB too, which have no keys), or reaching keys its flags do not
 * describe (EVAL, FCALL: `movablekeys`). PING, INFO, PUBLISH, SPUBLISH (its channel is `not_key`),
 * CLIENT, CONFIG … touch no cached key.
 */
function mayWriteKeys(spec: CommandSpec): boolean {
  if (spec.flags.has('write') || spec.flags.has('movablekeys')) return true;
  return spec.keySpecs.some((keySpec) => !keySpec.flags.includes('not_key'));
}

/**
 * The key indexes a command sent may change; undefined when it may change any key (a keyless
 * write, an unknown command, keys the table cannot find).
 */
export function writtenKeys(args: readonly RespArgument[]): readonly number[] | undefined {
  const keys = commandKeys(args);
  return keys === undefined || keys.length === 0 ? undefined : keys;
}
