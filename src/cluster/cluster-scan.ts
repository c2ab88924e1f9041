// SCAN over a cluster (issue 11 "Routing"): one walk visits every primary in turn, each page pinned
// to one node. The cursor the caller sees names the node: `<primary>-<node cursor>`, primaries in
// the order of their addresses; `0` starts the walk and, as from a server, ends it. Keys written
// or moved while the walk runs follow SCAN's own guarantee per node, not across nodes.
import { argumentText } from '../client/command-table.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';

export interface ClusterCursor {
  /** Position of the node in the sorted primaries. */
  readonly primary: number;
  /** The node's own cursor. */
  readonly cursor: string;
}

/** Whether a command line is a keyspace SCAN (not HSCAN/SSCAN/ZSCAN, which have a key). */
export function isScan(args: readonly RespArgument[]): boolean {
  return args.length >= 2 && argumentText(args[0]!).toLowerCase() === 'scan';
}

/** The node and node cursor a caller's cursor stands for; undefined when it is not one of ours. */
export function readClusterCursor(text: string): ClusterCursor | undefined {
  if (text === '0') return { primary: 0, cursor: '0' };
  const match = /^(\d{1,5})-(\d{1,20})$/.exec(text);
  if (match === null) return undefined;
  return { primary: Number(match[1]), cursor: match[2]! };
}

/**
 * The reply the caller sees for a page from primary `primary` of `count`: its cursor rewritten to
 * go on with that node, or with the next one once the node's walk ends.
 */
export function clusterScanReply(reply: RespValue, primary: number, count: number): RespValue {
  if (!Array.isArray(reply) || reply.length !== 2) return reply;
  const nodeCursor = String(reply[0]);
  let cursor: string;
  if (nodeCursor !== '0') cursor = `${primary}-${nodeCursor}`;
  else cursor = primary + 1 < count ? `${primary + 1}-0` : '0';
  return [cursor, reply[1]!];
}
