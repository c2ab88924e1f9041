// The slot map patched for one MOVED (PROTOCOL.md §2.3): the slot's new owner takes it at once, so
// the commands behind the redirected one go straight there; the full refresh a MOVED also
// schedules then brings every other change.
import { RespireError } from '../errors.js';
import { SLOT_COUNT } from './key-slot.js';
import type { NodeAddress } from './node-address.js';
import { type ClusterNode, type ClusterTopology, freezeTopology, MAX_NODES } from './topology.js';

/**
 * A topology in which `slot` belongs to `target`; `topology` itself when it already does. A target
 * the table does not hold joins it as an `online` primary without an id; a known target keeps its
 * role and health (a replica named by MOVED was promoted: the refresh will say so).
 */
export function withMovedSlot(topology: ClusterTopology, slot: number, target: NodeAddress): ClusterTopology {
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOT_COUNT) {
    throw new RespireError(`slot ${slot} is not a cluster slot (0 through ${SLOT_COUNT - 1})`);
  }
  const known = topology.byKey.get(target.key);
  if (known !== undefined && topology.slots[slot] === known) return topology;
  let nodes = topology.nodes;
  let byKey = topology.byKey;
  let owner = known;
  if (owner === undefined) {
    owner = nodes.length;
    if (owner >= MAX_NODES) throw new RespireError(`a cluster of more than ${MAX_NODES} nodes`);
    const { endpoint, key, announced } = target;
    const node: ClusterNode = {
      index: owner,
      id: undefined,
      endpoint,
      key,
      announced,
      role: 'primary',
      health: 'online',
      primary: owner,
      replicas: [],
    };
    nodes = [...nodes, node];
    byKey = new Map(byKey).set(key, owner);
  }
  const slots = topology.slots.slice();
  slots[slot] = owner;
  return freezeTopology(nodes, slots, byKey);
}
