// When each slot last changed owner, as the router saw its topologies (a refresh, a MOVED patch, a
// failover's promoted replica), for SCAN walks (cluster-scan.ts): a generation number that grows by
// one for each topology that moves any slot, and per slot the generation that last moved it. A
// slot "unmoved since g" has had the same owner (by dialled address) in every topology observed
// since generation g, and no connection to it was lost meanwhile (nodeLost). Topologies replaced
// before the router looked at one are not seen: a slot moved away and back between two looks
// counts as unmoved.
import { SLOT_COUNT } from './key-slot.js';
import { type ClusterTopology, UNASSIGNED } from './topology.js';

export class SlotHistory {
  /** Grows by one for each observed topology that moves a slot; 0 for the first one. */
  generation = 0;
  private readonly changedAt = new Uint32Array(SLOT_COUNT);
  private last: ClusterTopology | undefined;

  /** Records `topology` as the current one (a no-op when it already is). */
  observe(topology: ClusterTopology): void {
    const last = this.last;
    this.last = topology;
    if (last === undefined || last === topology) return;
    // Each old node's index in the new table (UNASSIGNED: gone), so slots compare as numbers.
    const renumber = last.nodes.map((node) => topology.byKey.get(node.key) ?? UNASSIGNED);
    this.markMoved((slot) => {
      const before = last.slots[slot]!;
      const now = topology.slots[slot]!;
      return before === UNASSIGNED ? now !== UNASSIGNED : renumber[before] !== now || now === UNASSIGNED;
    });
  }

  /**
   * Counts the slots of `node` (an index in `topology`, the current one) as moved: its server may
   * be another process now (a lost connection, a restart within the node timeout that keeps its
   * slots), and a SCAN cursor of one process means nothing to another (each seeds its hash).
   */
  nodeLost(topology: ClusterTopology, node: number): void {
    this.observe(topology);
    this.markMoved((slot) => topology.slots[slot] === node);
  }

  /** Stamps each slot `moved` names with the next generation, which begins if any was. */
  private markMoved(moved: (slot: number) => boolean): void {
    const next = this.generation + 1;
    let any = false;
    for (let slot = 0; slot < SLOT_COUNT; slot++) {
      if (!moved(slot)) continue;
      this.changedAt[slot] = next;
      any = true;
    }
    if (any) this.generation = next;
  }

  /** Whether `slot` changed owner after generation `since`. */
  movedSince(slot: number, since: number): boolean {
    return this.changedAt[slot]! > since;
  }
}
