// Which node serves a command (cluster-router.ts), by the current map: a slot's primary, or one of
// its replicas for a read-only command under `readFrom`; for keyless commands, one primary in turns
// (passing over a primary whose circuit is open while another's is not); for classic
// subscriptions, another primary when theirs fails. Also the topology views (topology-view.ts).

import { endpointKey } from '../client/endpoint.js';
import type { ReadFrom } from '../client/mode-options.js';
import type { EndpointNode } from '../client/node/endpoint-node.js';
import { readsFromReplica } from '../client/replica-reads.js';
import { RespireConnectionError, type RespireEndpoint, RespireServerError } from '../errors.js';
import type { Command } from '../transport/command.js';
import type { ClusterNodes } from './cluster-nodes.js';
import { type ClusterNode, type ClusterTopology, UNASSIGNED } from './topology.js';
import { type TopologyView, TopologyViews } from './topology-view.js';

export class NodeChoice {
  /** Turns for replicas of a slot and for keyless commands' primaries. */
  private turn = 0;
  private readonly views = new TopologyViews();

  constructor(
    private readonly topology: () => ClusterTopology,
    private readonly nodes: ClusterNodes,
    private readonly readFrom: ReadFrom,
    /** Asked when a slot has no owner in the map. */
    private readonly requestRefresh: () => void,
    /** The cluster's name for errors that name no node. */
    private readonly endpoint: RespireEndpoint,
  ) {}

  /** What keyless routing and SCAN read from the current map. */
  view(): TopologyView {
    return this.views.of(this.topology());
  }

  /** A node's connection was lost: for SCAN walks its slots count as moved (slot-history.ts). */
  nodeLost(node: EndpointNode): void {
    const view = this.view();
    const index = view.topology.byKey.get(endpointKey(node.endpoint));
    if (index !== undefined) view.history.nodeLost(view.topology, index);
  }

  /** The node for a slot: its primary, or a replica for a read-only command under `readFrom`. */
  forSlot(slot: number, command: Command<unknown>): EndpointNode | Error {
    const owner = this.ownerOf(slot);
    if (owner instanceof Error) return owner;
    const readFrom = this.readFrom;
    if (!readsFromReplica(command, readFrom)) return this.nodes.at(owner);
    const replicas = owner.replicas;
    if (replicas.length === 0) {
      if (readFrom === 'replicaPreferred') return this.nodes.at(owner);
      return new RespireConnectionError(
        `no healthy replica of ${owner.endpoint.host}:${owner.endpoint.port} for slot ${slot} (readFrom: 'replica')`,
        { endpoint: owner.endpoint, written: false },
      );
    }
    const replica = this.topology().nodes[replicas[this.turn++ % replicas.length]!]!;
    return this.nodes.at(replica);
  }

  primaryForSlot(slot: number): EndpointNode | Error {
    const owner = this.ownerOf(slot);
    return owner instanceof Error ? owner : this.nodes.at(owner);
  }

  /** The slot's primary; an unserved slot is CLUSTERDOWN, as the server would say, and a refresh. */
  private ownerOf(slot: number): ClusterNode | Error {
    const topology = this.topology();
    const index = topology.slots[slot]!;
    if (index === UNASSIGNED) {
      this.requestRefresh();
      return new RespireServerError(`CLUSTERDOWN Hash slot ${slot} is not served by any known node`);
    }
    return topology.nodes[index]!;
  }

  /**
   * A primary for keyless commands: `turn` picks a fixed one, otherwise they take turns, passing
   * over one whose circuit would reject it (open, or half-open with every probe slot taken) while
   * another's would not (seed 000: an open node affects only
   * commands routed to it, and a keyless command has no owner: choosing a healthy primary is
   * routing, not a bypass).
   */
  anyPrimary(turn?: number): EndpointNode | Error {
    const primaries = this.primaries();
    if (primaries.length === 0) return this.noNodeError();
    const first = turn ?? this.turn++;
    for (let i = 0; turn === undefined && i < primaries.length; i++) {
      const node = this.nodes.at(primaries[(first + i) % primaries.length]!);
      if (!refusesNow(node)) return node;
    }
    return this.nodes.at(primaries[first % primaries.length]!);
  }

  primaries(): readonly ClusterNode[] {
    return this.view().primaries;
  }

  online(): readonly ClusterNode[] {
    return this.view().online;
  }

  /**
   * The nodes a fan-out goes to: for `all_shards` every slot owner, for `all_nodes` every online
   * node and every owner. A failed owner is not left out (README "Health": it keeps its slots'
   * commands): its part fails or waits, so the caller never gets a reply missing a shard.
   */
  fanOut(policy: 'all_shards' | 'all_nodes'): readonly ClusterNode[] {
    const view = this.view();
    return policy === 'all_shards' ? view.owners : view.everyNode;
  }

  /**
   * For classic subscriptions: the first online primary other than `avoid`, one whose circuit
   * would not reject it now if there is one (a rejected SUBSCRIBE would hold nothing).
   */
  classicCandidate(avoid: EndpointNode | undefined): EndpointNode | undefined {
    const others = this.primaries()
      .map((primary) => this.nodes.at(primary))
      .filter((node) => node !== avoid);
    return others.find((node) => !refusesNow(node)) ?? others[0];
  }

  /** A node with no connection whose circuit is open, while other primaries are known. */
  ownerLost(node: EndpointNode): boolean {
    return node.main.current === undefined && node.circuit?.state === 'open' && this.primaries().length > 1;
  }

  noNodeError(): RespireConnectionError {
    return new RespireConnectionError('no cluster node is known to be online', {
      endpoint: this.endpoint,
      written: false,
    });
  }
}

/**
 * Whether `node`'s circuit would reject a command now: open (even past its open interval, so that
 * keyless traffic does not probe a sick node while others are well), or half-open with every probe
 * slot taken. One state read while closed.
 */
function refusesNow(node: EndpointNode): boolean {
  const state = node.circuit?.state;
  if (state === undefined || state === 'closed') return false;
  return state === 'open' || node.gate?.admitsNow() === false;
}
