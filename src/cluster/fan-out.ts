// Keyless commands sent to many nodes (PROTOCOL.md §2.2, API.md "Cluster"): which nodes by the
// command's `request_policy` tip, and one reply from theirs by its `response_policy` tip. A
// failure of any part fails the command, once every part has settled, save under `one_succeeded`
// (SCRIPT KILL: one shard's reply that is not an error answers it; joined-reply.ts).
import type { ResponsePolicy } from '../client/command-table.js';
import type { RespValue } from '../resp/types.js';

/** The reply of a fanned-out command from its parts' replies, in node order. */
export function aggregateReplies(
  policy: ResponsePolicy | undefined,
  replies: readonly RespValue[],
): RespValue {
  switch (policy) {
    case 'agg_sum':
      return replies.reduce<number>((sum, reply) => sum + Number(reply), 0);
    case 'agg_min':
      return Math.min(...replies.map(Number));
    case 'agg_max':
      return Math.max(...replies.map(Number));
    case 'agg_logical_and':
      return elementwise(replies, (a, b) => (a !== 0 && b !== 0 ? 1 : 0));
    case 'agg_logical_or':
      return elementwise(replies, (a, b) => (a !== 0 || b !== 0 ? 1 : 0));
    case 'all_succeeded':
    case 'one_succeeded':
    case 'special':
      return replies[0] ?? null;
    default:
      // No response tip (KEYS, for one): the parts' arrays joined; anything else, the first.
      return replies.every(Array.isArray) ? (replies as RespValue[][]).flat() : (replies[0] ?? null);
  }
}

/** SCRIPT EXISTS and friends: arrays of 0/1 combined position by position; scalars combined. */
function elementwise(replies: readonly RespValue[], combine: (a: number, b: number) => number): RespValue {
  if (replies.length === 0) return null;
  if (!Array.isArray(replies[0])) {
    return replies.map(Number).reduce((a, b) => combine(a, b));
  }
  const first = replies[0] as RespValue[];
  return first.map((_, i) =>
    replies.map((reply) => Number((reply as RespValue[])[i])).reduce((a, b) => combine(a, b)),
  );
}
