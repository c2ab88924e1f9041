// Which slot a command belongs to (PROTOCOL.md §2.2): its keys from the command table's key specs
// (shard channels included, as SPUBLISH/SSUBSCRIBE route by them), all in one slot, or none.
import { specKeys } from '../client/command-keys.js';
import { type CommandSpec, commandSpecOf } from '../client/command-table.js';
import { RespireServerError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import { keySlot } from './key-slot.js';

/** The command names no key, or the table cannot say which (the server redirects if it must). */
export const ANY_SLOT = -1;
/** Its keys hash to more than one slot. */
export const CROSS_SLOT = -2;

/** The table does not know the command's keys (key-lookup.ts asks the server). */
export const UNKNOWN_KEYS = -3;

/**
 * The slot of the command's keys, `ANY_SLOT`, or `CROSS_SLOT`; `unknown` (by default ANY_SLOT)
 * when the command table cannot tell its keys.
 */
export function commandSlot(args: readonly RespArgument[], unknown = ANY_SLOT): number {
  const spec = commandSpecOf(args);
  return spec === undefined ? unknown : specSlot(spec, args, unknown);
}

/** commandSlot for the spec `args` resolve to (the router looks it up once per command). */
export function specSlot(spec: CommandSpec, args: readonly RespArgument[], unknown = ANY_SLOT): number {
  // Most commands name one key at a fixed index (GET, SET, HSET…): its slot without the index
  // array of specKeys (the hot path, issue 11). SORT, SORT_RO and MIGRATE, read by native
  // extractors, have several key specs, so never take it.
  const only = spec.keySpecs.length === 1 ? spec.keySpecs[0]! : undefined;
  if (
    only !== undefined &&
    only.beginSearch.type === 'index' &&
    only.findKeys.type === 'range' &&
    only.findKeys.lastKey === 0 &&
    only.findKeys.keyStep >= 1 &&
    !only.flags.includes('incomplete')
  ) {
    const index = only.beginSearch.index;
    const arityFits = spec.arity >= 0 ? args.length === spec.arity : args.length >= -spec.arity;
    // What specKeys answers: no key for a malformed line, which the server refuses anyway.
    return arityFits && index < args.length ? keySlot(args[index]!) : ANY_SLOT;
  }
  const keys = specKeys(spec, args, { includeNotKeys: true });
  if (keys === undefined) return unknown;
  if (keys.length === 0) return ANY_SLOT;
  return slotOfArguments(args, keys);
}

/** The one slot of `args` at `positions`, or `CROSS_SLOT`. */
export function slotOfArguments(args: readonly RespArgument[], positions: readonly number[]): number {
  let slot = ANY_SLOT;
  for (const position of positions) {
    const next = keySlot(args[position]!);
    if (slot === ANY_SLOT) slot = next;
    else if (next !== slot) return CROSS_SLOT;
  }
  return slot;
}

/** The slot every command of a transaction (or the keys of a WATCH) shares. */
export function sharedSlot(slots: Iterable<number>): number {
  let shared = ANY_SLOT;
  for (const slot of slots) {
    if (slot === CROSS_SLOT) return CROSS_SLOT;
    if (slot === ANY_SLOT) continue;
    if (shared === ANY_SLOT) shared = slot;
    else if (shared !== slot) return CROSS_SLOT;
  }
  return shared;
}

/** What the server would answer, given before anything is sent (API.md "Cluster"). */
export function crossSlotError(what: string): RespireServerError {
  return new RespireServerError(`CROSSSLOT Keys in request don't hash to the same slot (${what})`);
}
