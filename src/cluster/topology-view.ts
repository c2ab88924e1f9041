// What keyless routing and SCAN read from a topology (cluster-router.ts): its online nodes, online
// primaries and slot owners (fan-outs), derived once per topology (a refresh or a MOVED replaces it whole) instead of
// per command, and the slot history SCAN walks read (slot-history.ts), which sees each topology
// the router looks at.
import { SlotHistory } from './slot-history.js';
import type { ClusterNode, ClusterTopology } from './topology.js';

/** Derived from one topology. */
export interface TopologyView {
  readonly topology: ClusterTopology;
  readonly online: readonly ClusterNode[];
  readonly primaries: readonly ClusterNode[];
  /**
   * Every shard's slot owner, in node order: the online primaries and a failed or loading primary
   * that still owns slots (until a replica is promoted). An `all_shards` fan-out goes to each.
   */
  readonly owners: readonly ClusterNode[];
  /** `online` and the owners that are not: an `all_nodes` fan-out goes to each. */
  readonly everyNode: readonly ClusterNode[];
  /** When each slot last changed owner, up to this topology. */
  readonly history: SlotHistory;
}

export class TopologyViews {
  private derived: TopologyView | undefined;
  private readonly history = new SlotHistory();

  /** The view of `topology`, derived on its first use. */
  of(topology: ClusterTopology): TopologyView {
    if (this.derived?.topology !== topology) {
      this.history.observe(topology);
      const online = topology.nodes.filter((node) => node.health === 'online');
      const owning = new Set<number>(topology.slots);
      const owners = topology.nodes.filter((_, index) => owning.has(index));
      this.derived = {
        topology,
        online,
        primaries: online.filter((node) => node.role === 'primary'),
        owners,
        everyNode: topology.nodes.filter((node, index) => node.health === 'online' || owning.has(index)),
        history: this.history,
      };
    }
    return this.derived;
  }
}
