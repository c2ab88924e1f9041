// SCAN over a cluster (issue 11 "Routing"): one walk visits every primary in turn, each page pinned
// to one node. The cursor the caller sees names the node by the lowest slot it served when the walk
// reached it: `<slot>-<node cursor>`, primaries in the order of their lowest slots; `0` starts the
// walk and, as from a server, ends it. A slot rather than a position or an address, so that after a
// failover the page goes to the promoted replica, which holds the same keys (a position in the list
// of primaries would then name another node and lose keys). Keys written or moved while the walk
// runs follow SCAN's own guarantee per node, not across nodes.
import { argumentText } from '../client/command-table.js';
import { RespireServerError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { SLOT_COUNT } from './key-slot.js';
import { type ClusterTopology, UNASSIGNED } from './topology.js';

export interface ClusterCursor {
  /** The lowest slot of the node walked when the cursor was made; undefined: the walk starts. */
  readonly slot: number | undefined;
  /** The node's own cursor. */
  readonly cursor: string;
}

/** One primary of the walk: its node index and the lowest slot it serves. */
export interface WalkStop {
  readonly node: number;
  readonly slot: number;
}

/** Whether a command line is a keyspace SCAN (not HSCAN/SSCAN/ZSCAN, which have a key). */
export function isScan(args: readonly RespArgument[]): boolean {
  return args.length >= 2 && argumentText(args[0]!).toLowerCase() === 'scan';
}

/** The node and node cursor a caller's cursor stands for; undefined when it is not one of ours. */
export function readClusterCursor(text: string): ClusterCursor | undefined {
  if (text === '0') return { slot: undefined, cursor: '0' };
  const match = /^(\d{1,5})-(\d{1,20})$/.exec(text);
  if (match === null || Number(match[1]) >= SLOT_COUNT) return undefined;
  return { slot: Number(match[1]), cursor: match[2]! };
}

/** The primaries that `usable` accepts, each once, in the order of their lowest slots. */
export function scanWalk(topology: ClusterTopology, usable: (node: number) => boolean): WalkStop[] {
  const seen = new Set<number>();
  const walk: WalkStop[] = [];
  topology.slots.forEach((node, slot) => {
    if (node === UNASSIGNED || seen.has(node)) return;
    seen.add(node);
    if (usable(node)) walk.push({ node, slot });
  });
  return walk;
}

/**
 * The reply the caller sees for a page from the node whose walk stop is `slot`: its cursor
 * rewritten to go on with that node, or with the stop `next` once the node's walk ends.
 */
export function clusterScanReply(reply: RespValue, slot: number, next: number | undefined): RespValue {
  if (!Array.isArray(reply) || reply.length !== 2) return reply;
  const nodeCursor = String(reply[0]);
  let cursor: string;
  if (nodeCursor !== '0') cursor = `${slot}-${nodeCursor}`;
  else cursor = next === undefined ? '0' : `${next}-0`;
  return [cursor, reply[1]!];
}

/** Where one SCAN page goes: the owner's node index, the node's command line, and its walk stops. */
export interface ScanPage {
  readonly owner: number;
  readonly page: RespArgument[];
  /** The walk stop the owner serves, and the next stop (clusterScanReply). */
  readonly slot: number;
  readonly next: number | undefined;
}

/** The page a caller's SCAN line asks for, pinned to the primary its cursor names; an error for a cursor no walk made. */
export function planScanPage(
  args: readonly RespArgument[],
  topology: ClusterTopology,
  walk: readonly WalkStop[],
): ScanPage | RespireServerError {
  const position = readClusterCursor(String(args[1]));
  const owner = position?.slot === undefined ? walk[0]?.node : topology.slots[position.slot];
  if (position === undefined || owner === undefined || owner === UNASSIGNED) {
    return new RespireServerError(`ERR invalid cursor ${String(args[1])} for a cluster SCAN`);
  }
  const slot = position.slot ?? walk[0]!.slot;
  const next = walk.find((stop) => stop.slot > slot && stop.node !== owner)?.slot;
  return { owner, page: [args[0]!, position.cursor, ...args.slice(2)], slot, next };
}
