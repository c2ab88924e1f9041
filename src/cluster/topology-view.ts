// What keyless routing and SCAN read from a topology (cluster-router.ts): its online nodes, online
// primaries and SCAN walk, derived once per topology (a refresh or a MOVED replaces it whole)
// instead of per command: a SCAN page walked all 16384 slots.
import { scanWalk, type WalkStop } from './cluster-scan.js';
import type { ClusterNode, ClusterTopology } from './topology.js';

/** Derived from one topology. */
export interface TopologyView {
  readonly topology: ClusterTopology;
  readonly online: readonly ClusterNode[];
  readonly primaries: readonly ClusterNode[];
  readonly walk: readonly WalkStop[];
}

export class TopologyViews {
  private derived: TopologyView | undefined;

  /** The view of `topology`, derived on its first use. */
  of(topology: ClusterTopology): TopologyView {
    if (this.derived?.topology !== topology) {
      const online = topology.nodes.filter((node) => node.health === 'online');
      this.derived = {
        topology,
        online,
        primaries: online.filter((node) => node.role === 'primary'),
        walk: scanWalk(topology, (index) => topology.nodes[index]!.health === 'online'),
      };
    }
    return this.derived;
  }
}
