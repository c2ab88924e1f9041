// The cluster's topology as the router reads it (issue 11 "Topology"): a node table, a slot map of
// primary indexes, and each primary's replicas. Built whole from one topology reply and never
// changed after; a refresh or a MOVED makes a new one (withMovedSlot in moved-slot.ts).
import { RespireError } from '../errors.js';
import { SLOT_COUNT } from './key-slot.js';
import type { NodeAddress } from './node-address.js';

/** The slot map's entry for a slot no usable primary serves. */
export const UNASSIGNED = 0xffff;

export type ClusterRole = 'primary' | 'replica';

/**
 * `CLUSTER SHARDS` health: `online`, `failed` (7.0.15 sends `fail`, the docs say `failed`) or
 * `loading`. `CLUSTER SLOTS` gives no health (it leaves failed replicas out), so its nodes are
 * `online`.
 */
export type NodeHealth = 'online' | 'failed' | 'loading';

export interface ClusterNode extends NodeAddress {
  /** Position in `ClusterTopology.nodes`; what the slot map holds. */
  readonly index: number;
  /** The 40-character node id; `undefined` from servers whose `CLUSTER SLOTS` has none, and for a node learnt from a MOVED. */
  readonly id: string | undefined;
  readonly role: ClusterRole;
  /** Only `online` nodes take traffic (PROTOCOL.md §2.4); the others are listed so that errors can name them. */
  readonly health: NodeHealth;
  /** The index of this replica's primary; a primary's own index. */
  readonly primary: number;
  /** A primary's `online` replicas, in the order the cluster listed them; empty for a replica. */
  readonly replicas: readonly number[];
}

export interface ClusterTopology {
  /** Every node with a usable address, primaries and replicas; frozen. */
  readonly nodes: readonly ClusterNode[];
  /**
   * The primary's node index per slot, `UNASSIGNED` for a slot no reply listed or whose primary has
   * no usable address. Never written once built (typed arrays cannot be frozen): a change is a new
   * topology. The owner may be `failed` or `loading`: the router checks its health.
   */
  readonly slots: Uint16Array;
  /** Node index by `NodeAddress.key`. */
  readonly byKey: ReadonlyMap<string, number>;
}

/** One node of a reply, its address resolved (`null`: the cluster knows no way to reach it). */
export interface AnnouncedNode {
  readonly id: string | undefined;
  readonly address: NodeAddress | null;
  readonly role: ClusterRole;
  readonly health: NodeHealth;
}

/** One shard (or one `CLUSTER SLOTS` range) of a reply. */
export interface AnnouncedShard {
  /** Inclusive slot ranges, flat (`start, end, start, end…`), each within 0 through 16383. */
  readonly ranges: readonly number[];
  readonly nodes: readonly AnnouncedNode[];
}

/** More nodes than a slot map entry can index; no real cluster comes near (the spec's limit is 1,000). */
export const MAX_NODES = UNASSIGNED;

interface DraftNode extends Omit<ClusterNode, 'replicas'> {
  replicas: number[];
}

/**
 * A topology from the shards of a reply. Per shard, the primary is its first `online` primary, else
 * its first primary; other primaries of the shard are left out. A shard whose primary has no usable
 * address leaves its slots `UNASSIGNED` and its replicas out (there is no primary to read for).
 * A node listed again (`CLUSTER SLOTS` repeats a node per range) is the same node; a repeat with
 * another role or primary is left out. Later ranges win where ranges overlap.
 */
export function buildTopology(shards: readonly AnnouncedShard[]): ClusterTopology {
  const nodes: DraftNode[] = [];
  const byKey = new Map<string, number>();
  const slots = new Uint16Array(SLOT_COUNT).fill(UNASSIGNED);
  const add = (node: AnnouncedNode & { address: NodeAddress }, primary: number | undefined) => {
    const known = byKey.get(node.address.key);
    if (known !== undefined) {
      const same = nodes[known]!;
      const matches = same.role === node.role && (primary === undefined || same.primary === primary);
      return matches ? known : undefined;
    }
    const index = nodes.length;
    if (index >= MAX_NODES) throw new RespireError(`a cluster of more than ${MAX_NODES} nodes`);
    const { endpoint, key, announced } = node.address;
    nodes.push({
      index,
      id: node.id,
      endpoint,
      key,
      announced,
      role: node.role,
      health: node.health,
      primary: primary ?? index,
      replicas: [],
    });
    byKey.set(key, index);
    return index;
  };
  for (const shard of shards) {
    const primaries = shard.nodes.filter((node) => node.role === 'primary');
    const chosen = primaries.find((node) => node.health === 'online') ?? primaries[0];
    if (chosen?.address == null) continue;
    const primary = add({ ...chosen, address: chosen.address }, undefined);
    if (primary === undefined) continue;
    for (const node of shard.nodes) {
      if (node.role !== 'replica' || node.address === null) continue;
      const replica = add({ ...node, address: node.address }, primary);
      const replicas = nodes[primary]!.replicas;
      if (replica !== undefined && node.health === 'online' && !replicas.includes(replica))
        replicas.push(replica);
    }
    for (let i = 0; i + 1 < shard.ranges.length; i += 2)
      slots.fill(primary, shard.ranges[i]!, shard.ranges[i + 1]! + 1);
  }
  return freezeTopology(nodes, slots, byKey);
}

/**
 * The finished topology: nodes and their replica lists frozen, so no holder can change another's
 * view. A frozen node table (another topology's) is shared as it is.
 */
export function freezeTopology(
  nodes: readonly ClusterNode[],
  slots: Uint16Array,
  byKey: ReadonlyMap<string, number>,
): ClusterTopology {
  const frozen = Object.isFrozen(nodes)
    ? nodes
    : Object.freeze(
        nodes.map((node) =>
          Object.isFrozen(node)
            ? node
            : Object.freeze({ ...node, replicas: Object.freeze([...node.replicas]) }),
        ),
      );
  return Object.freeze({ nodes: frozen, slots, byKey });
}
