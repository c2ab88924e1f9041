// Helpers shared by the topology tests: decoding a recorded reply, and a topology summed up as
// lines a test can compare (nodes with role, health, primary and replicas; slot ranges by owner).

import { endpointKey } from '../../src/client/endpoint.js';
import { type ClusterTopology, UNASSIGNED } from '../../src/cluster/topology.js';
import { RespDecoder } from '../../src/resp/decoder.js';
import type { RespValue } from '../../src/resp/types.js';

/** The one reply in `raw` (latin1 text of the recorded bytes). */
export function decodeReply(raw: string, returnBuffers = false): RespValue {
  const replies: RespValue[] = [];
  new RespDecoder({ onReply: (value) => replies.push(value), onPush() {}, returnBuffers }).write(
    Buffer.from(raw, 'latin1'),
  );
  if (replies.length !== 1) throw new Error(`expected one reply, decoded ${replies.length}`);
  return replies[0]!;
}

export interface TopologySummary {
  /** `host:port role health`, then `of <primary>` for a replica, `replicas <a,b>` for a primary. */
  nodes: string[];
  /** `start-end owner` for each run of slots with the same owner (`-` for unassigned). */
  ranges: string[];
}

export function summarize(topology: ClusterTopology): TopologySummary {
  const name = (index: number) => endpointKey(topology.nodes[index]!.endpoint);
  const nodes = topology.nodes.map((node) => {
    const tail =
      node.role === 'replica' ? `of ${name(node.primary)}` : `replicas ${node.replicas.map(name).join(',')}`;
    return `${node.key} ${node.role} ${node.health} ${tail}`.trimEnd();
  });
  const ranges: string[] = [];
  let start = 0;
  for (let slot = 1; slot <= topology.slots.length; slot++) {
    if (slot < topology.slots.length && topology.slots[slot] === topology.slots[start]) continue;
    const owner = topology.slots[start]!;
    ranges.push(`${start}-${slot - 1} ${owner === UNASSIGNED ? '-' : name(owner)}`);
    start = slot;
  }
  return { nodes, ranges };
}
