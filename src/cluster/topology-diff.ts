// What changed between two topologies, for the router to act on after a refresh (issue 11
// "Topology"): connections to nodes gone from the map are closed, a node whose role changed needs
// its connections' handshake redone (READONLY on replicas only), and shard channel subscriptions
// follow slots whose owner moved.
import { SLOT_COUNT } from './key-slot.js';
import { type ClusterNode, type ClusterTopology, UNASSIGNED } from './topology.js';

export interface TopologyChanges {
  /** Nodes of the previous topology whose address the next one does not hold. */
  readonly removed: readonly ClusterNode[];
  /** Nodes of the next topology that the previous one held with the other role. */
  readonly roleChanged: readonly ClusterNode[];
  /** Slots whose owner's address changed, assigned or unassigned on either side, ascending. */
  readonly movedSlots: readonly number[];
}

/** Nodes are the same node when their dialled addresses are (`NodeAddress.key`), as circuits are. */
export function compareTopologies(previous: ClusterTopology, next: ClusterTopology): TopologyChanges {
  const removed = previous.nodes.filter((node) => !next.byKey.has(node.key));
  const roleChanged = next.nodes.filter((node) => {
    const before = previous.byKey.get(node.key);
    return before !== undefined && previous.nodes[before]!.role !== node.role;
  });
  const movedSlots: number[] = [];
  for (let slot = 0; slot < SLOT_COUNT; slot++) {
    if (ownerKey(previous, slot) !== ownerKey(next, slot)) movedSlots.push(slot);
  }
  return { removed, roleChanged, movedSlots };
}

function ownerKey(topology: ClusterTopology, slot: number): string | undefined {
  const owner = topology.slots[slot]!;
  return owner === UNASSIGNED ? undefined : topology.nodes[owner]!.key;
}
