// SCAN over a cluster (issue 11 "Routing"): one walk sweeps the slots upward, 0 to 16383, and scans
// nodes whole, each page pinned to one node. A step scans the owner of the slot the sweep stands on
// from node cursor 0 to 0, and passes the slots it covered: from that slot up, those the node owned
// for the whole step. The sweep then stands on the next slot no step covered, skipping the slots of
// a node a step already scanned that it owned for the whole walk (slot-history.ts says which).
//
// The guarantee (README "Cluster"): every key present for the whole walk is returned at least once,
// also while slots move between primaries (resharding, failover), given that the client's map sees
// each move before the walk passes the slot: a key on a node for the whole scan of that node is
// returned by it (SCAN's own guarantee), and a slot the sweep passes was owned, unmoved, by the
// node scanned while the sweep stood on it. A step whose slot moves restarts on the new owner from
// node cursor 0 (a node cursor means nothing on another server: each hashes with a seed of its
// own), and a node whose slots were moved to it is scanned again: keys may come more than once. A
// node whose connection was lost counts as moved (slot-history.ts nodeLost): it may be another
// process now, restarted within the node timeout with its slots and its keys.
// Not covered: keys a migration under way has already moved to a node the walk has passed, while
// the map still names the source (Redis tells the client only when the slot's owner changes).
//
// The cursor the caller sees: `<slot>-<walk>-<step>-<node cursor>`, the slot the sweep stands on,
// the history generation at which the walk and the step began, and the node's own cursor; `0` starts
// the walk and, as from a server, ends it. Valid for the client that made it.
import { argumentText } from '../client/command-table.js';
import { RespireServerError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { SLOT_COUNT } from './key-slot.js';
import type { SlotHistory } from './slot-history.js';
import { type ClusterTopology, UNASSIGNED } from './topology.js';

/** Where a walk stands: the slot, the generations its walk and its step began at, the node's cursor. */
export interface ClusterCursor {
  readonly slot: number;
  readonly walk: number;
  readonly step: number;
  readonly cursor: string;
}

/** Whether a command line is a keyspace SCAN (not HSCAN/SSCAN/ZSCAN, which have a key). */
export function isScan(args: readonly RespArgument[]): boolean {
  return args.length >= 2 && argumentText(args[0]!).toLowerCase() === 'scan';
}

/** What a caller's cursor stands for: 'start' for `0`; undefined when it is not one of ours. */
export function readClusterCursor(text: string): ClusterCursor | 'start' | undefined {
  if (text === '0') return 'start';
  const match = /^(\d{1,5})-(\d{1,10})-(\d{1,10})-(\d{1,20})$/.exec(text);
  if (match === null || Number(match[1]) >= SLOT_COUNT) return undefined;
  return { slot: Number(match[1]), walk: Number(match[2]), step: Number(match[3]), cursor: match[4]! };
}

/** One SCAN page: the node it is pinned to (an index in the topology), its command line, and the walk. */
export interface ScanPage {
  readonly owner: number;
  readonly page: RespArgument[];
  /** The slot the sweep stands on, and the generations the walk and the step began at. */
  readonly slot: number;
  readonly walk: number;
  readonly step: number;
}

/** The page a caller's SCAN line asks for; an error for a cursor no walk of this client made. */
export function planScanPage(
  args: readonly RespArgument[],
  topology: ClusterTopology,
  history: SlotHistory,
): ScanPage | RespireServerError {
  const text = String(args[1]);
  const at = readClusterCursor(text);
  const now = history.generation;
  if (at === undefined || (at !== 'start' && (at.walk > at.step || at.step > now))) {
    return new RespireServerError(`ERR invalid cursor ${text} for a cluster SCAN`);
  }
  let position: ClusterCursor | undefined;
  if (at === 'start') position = stepAt(topology, history, 0, now);
  // The step's slot moved: its node cursor is another server's; the step starts again on the owner.
  else if (history.movedSince(at.slot, at.step)) position = stepAt(topology, history, at.slot, at.walk);
  else position = at;
  if (position === undefined) {
    return new RespireServerError(`CLUSTERDOWN no slot from ${at === 'start' ? 0 : at.slot} up is served`);
  }
  return {
    owner: topology.slots[position.slot]!,
    page: [args[0]!, position.cursor, ...args.slice(2)],
    slot: position.slot,
    walk: position.walk,
    step: position.step,
  };
}

/**
 * The reply the caller sees for `page`'s reply, read when it came (`topology`, `history` current):
 * its cursor rewritten to go on with the node, or with the next step once the node's scan ends.
 */
export function clusterScanReply(
  reply: RespValue,
  page: ScanPage,
  topology: ClusterTopology,
  history: SlotHistory,
): RespValue {
  if (!Array.isArray(reply) || reply.length !== 2) return reply;
  const nodeCursor = String(reply[0]);
  const { slot, walk, step } = page;
  // Mid-step, or the step's slot moved before its reply came (the next page starts the step again).
  if (nodeCursor !== '0' || history.movedSince(slot, step)) {
    return [`${slot}-${walk}-${step}-${nodeCursor}`, reply[1]!];
  }
  // The node's scan ended: it covered its slots from `slot` up that it owned for the whole step.
  const node = topology.slots[slot]!;
  let end = slot + 1;
  while (end < SLOT_COUNT && topology.slots[end] === node && !history.movedSince(end, step)) end++;
  const next = stepAt(topology, history, end, walk);
  return [next === undefined ? '0' : `${next.slot}-${next.walk}-${next.step}-0`, reply[1]!];
}

/**
 * A new step at the first served slot from `from` up that no step of the walk begun at generation
 * `walk` has covered; undefined when none is left. A slot is covered when its owner owns a slot
 * below it, both unmoved since the walk began: the sweep passed that slot, so a step scanned the
 * owner while it held both.
 */
function stepAt(
  topology: ClusterTopology,
  history: SlotHistory,
  from: number,
  walk: number,
): ClusterCursor | undefined {
  const scanned = new Set<number>();
  for (let slot = 0; slot < SLOT_COUNT; slot++) {
    const owner = topology.slots[slot]!;
    if (owner === UNASSIGNED) continue;
    const unmoved = !history.movedSince(slot, walk);
    if (slot >= from && !(unmoved && scanned.has(owner))) {
      return { slot, walk, step: history.generation, cursor: '0' };
    }
    if (unmoved) scanned.add(owner);
  }
  return undefined;
}
