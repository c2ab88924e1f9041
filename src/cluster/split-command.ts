// MGET, MSET, DEL, UNLINK, EXISTS and TOUCH whose keys span slots (API.md "Cluster"): split into one
// command per slot, sent concurrently, and the replies joined as the server would answer for one
// slot: MGET's values in argument order, MSET 'OK', the others the sum. Not atomic.
import { type CommandSpec, commandSpec } from '../client/command-table.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { keySlot } from './key-slot.js';

type Join = 'values' | 'ok' | 'sum';

/** Arguments per key after the name (MSET: key and value), and how replies join. */
interface Splittable {
  readonly stride: number;
  readonly join: Join;
  /** MSET, DEL, UNLINK: a part written alone changes data (cluster-router.ts sendSplit). */
  readonly writes: boolean;
}

const SPLITTABLE_NAMES: readonly (readonly [string, Splittable])[] = [
  ['mget', { stride: 1, join: 'values', writes: false }],
  ['mset', { stride: 2, join: 'ok', writes: true }],
  ['del', { stride: 1, join: 'sum', writes: true }],
  ['unlink', { stride: 1, join: 'sum', writes: true }],
  ['exists', { stride: 1, join: 'sum', writes: false }],
  ['touch', { stride: 1, join: 'sum', writes: false }],
];

/** By the table's spec object, so that the router's one spec lookup per command decides. */
let splittable: ReadonlyMap<CommandSpec, Splittable> | undefined;

function splittableOf(spec: CommandSpec): Splittable | undefined {
  splittable ??= new Map(SPLITTABLE_NAMES.map(([name, shape]) => [commandSpec(name)!, shape]));
  return splittable.get(spec);
}

/** One slot's part of a split command: its arguments and where its keys stood in the original. */
export interface CommandPart {
  readonly slot: number;
  readonly args: RespArgument[];
  /** For each key of the part, its key number in the original (0 = the first key). */
  readonly keyNumbers: number[];
}

export interface SplitCommand {
  readonly parts: readonly CommandPart[];
  /** Whether its parts write (MSET, DEL, UNLINK). */
  readonly writes: boolean;
  /** Joins the parts' replies (in `parts` order) into the reply of the original command. */
  join(replies: readonly RespValue[]): RespValue;
}

/**
 * For MGET, MSET, DEL, UNLINK, EXISTS and TOUCH: the slot of their keys when they share one, else
 * the command split per slot (each key hashed once). Undefined for any other command, and for a
 * line with no key or a dangling MSET key, which the router reads as any other command.
 */
export function slotOrSplit(
  spec: CommandSpec,
  args: readonly RespArgument[],
): number | SplitCommand | undefined {
  const shape = splittableOf(spec);
  if (shape === undefined || args.length < 2 || (args.length - 1) % shape.stride !== 0) return undefined;
  const keyCount = (args.length - 1) / shape.stride;
  const first = keySlot(args[1]!);
  let key = 1;
  let slot = first;
  for (; key < keyCount; key++) {
    slot = keySlot(args[1 + key * shape.stride]!);
    if (slot !== first) break;
  }
  if (key === keyCount) return first;
  // Keys 0 … key-1 share `first`; key has `slot`; the rest are hashed once as the parts are made.
  const bySlot = new Map<number, CommandPart>();
  const add = (number: number, at: number, into: number): void => {
    let part = bySlot.get(into);
    if (part === undefined) {
      part = { slot: into, args: [args[0]!], keyNumbers: [] };
      bySlot.set(into, part);
    }
    for (let i = 0; i < shape.stride; i++) part.args.push(args[at + i]!);
    part.keyNumbers.push(number);
  };
  for (let k = 0; k < key; k++) add(k, 1 + k * shape.stride, first);
  add(key, 1 + key * shape.stride, slot);
  for (let k = key + 1; k < keyCount; k++) {
    const at = 1 + k * shape.stride;
    add(k, at, keySlot(args[at]!));
  }
  const parts = [...bySlot.values()];
  return {
    parts,
    writes: shape.writes,
    join: (replies) => joinReplies(shape.join, parts, replies, keyCount),
  };
}

function joinReplies(
  join: Join,
  parts: readonly CommandPart[],
  replies: readonly RespValue[],
  keys: number,
): RespValue {
  if (join === 'ok') return 'OK';
  if (join === 'sum') {
    let sum = 0;
    for (const reply of replies) sum += Number(reply);
    return sum;
  }
  const values: RespValue[] = new Array(keys);
  parts.forEach((part, i) => {
    const reply = replies[i] as RespValue[];
    part.keyNumbers.forEach((key, j) => {
      values[key] = reply[j]!;
    });
  });
  return values;
}
