// MGET, MSET, DEL, UNLINK, EXISTS and TOUCH whose keys span slots (API.md "Cluster"): split into one
// command per slot, sent concurrently, and the replies joined as the server would answer for one
// slot: MGET's values in argument order, MSET 'OK', the others the sum. Not atomic.
import { argumentText } from '../client/command-table.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { keySlot } from './key-slot.js';

type Join = 'values' | 'ok' | 'sum';

/** Arguments per key after the name (MSET: key and value), and how replies join. */
const SPLITTABLE: ReadonlyMap<string, { readonly stride: number; readonly join: Join }> = new Map([
  ['mget', { stride: 1, join: 'values' }],
  ['mset', { stride: 2, join: 'ok' }],
  ['del', { stride: 1, join: 'sum' }],
  ['unlink', { stride: 1, join: 'sum' }],
  ['exists', { stride: 1, join: 'sum' }],
  ['touch', { stride: 1, join: 'sum' }],
]);

/** One slot's part of a split command: its arguments and where its keys stood in the original. */
export interface CommandPart {
  readonly slot: number;
  readonly args: RespArgument[];
  /** For each key of the part, its key number in the original (0 = the first key). */
  readonly keyNumbers: number[];
}

export interface SplitCommand {
  readonly parts: readonly CommandPart[];
  /** Joins the parts' replies (in `parts` order) into the reply of the original command. */
  join(replies: readonly RespValue[]): RespValue;
}

/** The command split per slot, or undefined when it is not one of these or has no key. */
export function splitBySlot(args: readonly RespArgument[]): SplitCommand | undefined {
  if (args.length < 2) return undefined;
  const spec = SPLITTABLE.get(argumentText(args[0]!).toLowerCase());
  if (spec === undefined || (args.length - 1) % spec.stride !== 0) return undefined;
  const bySlot = new Map<number, CommandPart>();
  const keyCount = (args.length - 1) / spec.stride;
  for (let key = 0; key < keyCount; key++) {
    const at = 1 + key * spec.stride;
    const slot = keySlot(args[at]!);
    let part = bySlot.get(slot);
    if (part === undefined) {
      part = { slot, args: [args[0]!], keyNumbers: [] };
      bySlot.set(slot, part);
    }
    for (let i = 0; i < spec.stride; i++) part.args.push(args[at + i]!);
    part.keyNumbers.push(key);
  }
  const parts = [...bySlot.values()];
  return { parts, join: (replies) => joinReplies(spec.join, parts, replies, keyCount) };
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
