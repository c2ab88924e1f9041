// The Cluster router's nodes (issue 11 "Topology"): one EndpointNode per cluster node address, made
// on first use with its connection opened in the background, closed when a refresh no longer lists
// it; and, on each new map, the attempts and transactions waiting for a connection to a node that
// no longer serves their slot moved to the node that does.

import type { NodeFactory } from '../client/client-core.js';
import { endpointKey } from '../client/endpoint.js';
import type { ReadFrom } from '../client/mode-options.js';
import type { ClientCircuit } from '../client/node/circuit-gate.js';
import type { EndpointNode } from '../client/node/endpoint-node.js';
import type { PubSubListener } from '../client/pubsub/subscriber.js';
import type { RespireEndpoint } from '../errors.js';
import type { Command } from '../transport/command.js';
import { ClusterAttempt } from './cluster-attempt.js';
import type { NodeAddress } from './node-address.js';
import type { ClusterTopology } from './topology.js';

/** What moving an attempt needs from the router. */
export interface AttemptRouter {
  /** Where the attempt's command goes by the current map; the node it waits on to stay. */
  nodeFor(attempt: ClusterAttempt, waitingOn: EndpointNode): EndpointNode;
  /** Sends the origin of an abandoned attempt again, as the same hop, on `node`. */
  resend(attempt: ClusterAttempt, node: EndpointNode): void;
}

export class ClusterNodes {
  private readonly nodes = new Map<string, EndpointNode>();
  /**
   * Under `readFrom` replicas, READONLY on every node's connections, primaries too (there it
   * changes nothing): a primary that a failover demotes then serves reads as a replica at once,
   * instead of answering them with MOVED over connections made before it was one.
   */
  private readonly readOnlySetup: readonly (readonly string[])[] | undefined;
  private closed = false;

  constructor(
    private readonly factory: NodeFactory,
    readFrom: ReadFrom,
    /** Told when a node's connection is lost or does not come back: its slots may have moved. */
    private readonly onReconnecting: (node: EndpointNode) => void,
    /** The server dropped a shard channel on `from` (its slot moved): subscribe it on the new owner. */
    private readonly onShardChannelDropped: (
      from: EndpointNode,
      channel: string,
      listeners: ReadonlySet<PubSubListener>,
    ) => void,
  ) {
    this.readOnlySetup = readFrom === 'primary' ? undefined : [['READONLY']];
  }

  /** The node for an address, made (and its connection opened in the background) on first use. */
  at(address: NodeAddress): EndpointNode {
    let node = this.nodes.get(address.key);
    if (node === undefined) {
      const made: EndpointNode = this.factory.create(address.endpoint, {
        setupCommands: this.readOnlySetup,
        onReconnecting: () => this.onReconnecting(made),
        // PROTOCOL.md §5: an SMIGRATED notification moved slots; the same rate-limited refresh.
        onSlotsMigrated: () => this.onReconnecting(made),
        onShardChannelDropped: (channel, listeners) => this.onShardChannelDropped(made, channel, listeners),
      });
      node = made;
      this.nodes.set(address.key, node);
      // Made after close() (a command for a node not used before): closed at once, so that what is
      // sent to it fails as after close() and no connection outlives the client.
      if (this.closed) node.close().catch(ignore);
      else node.startInBackground();
    }
    return node;
  }

  all(): readonly EndpointNode[] {
    return [...this.nodes.values()];
  }

  circuitOf(endpoint: RespireEndpoint): ClientCircuit | undefined {
    return this.nodes.get(endpointKey(endpoint))?.circuit;
  }

  /**
   * A new topology: nodes it no longer lists are closed (what is in flight there may finish), and
   * commands waiting for a connection to a node that no longer serves their slot move on first.
   */
  adopt(topology: ClusterTopology, router: AttemptRouter): void {
    for (const [key, node] of this.nodes) {
      const listed = topology.byKey.has(key);
      if (!listed || node.main.current === undefined) {
        reroute(node, router);
        this.moveTransactions(node, listed);
      }
      if (listed) continue;
      this.nodes.delete(key);
      node.close().catch(ignore);
    }
    // Client-side cache: each primary's tracking connection hears every key written there, those
    // of slots that moved to it too, whose cached replies came from another node (an absent key's
    // null migrates nothing, so no node reports it); a node the client never used would have none.
    if (this.factory.caching === true) {
      for (const node of topology.nodes)
        if (node.role === 'primary' && node.health === 'online') this.at(node);
    }
  }

  /**
   * Transactions nothing of which was written, waiting for `node`'s connection, go whole to the
   * node the map now names for their slot, keeping their acquire deadlines (TransactionRun
   * moveWhole, as on a failover switch; seed 000 "Retries": a moved slot's new owner admits them).
   * Without this, those of a node the map dropped failed with "the client is closed" at its close().
   * One whose slot has no known owner stays while its node is listed, else fails with why.
   */
  private moveTransactions(node: EndpointNode, listed: boolean): void {
    const place = this.factory.placeTransaction;
    if (place === undefined) return;
    const own = { target: node.transactionTarget, tracker: node.transactions };
    node.transactions.moveUnwritten(node.main, (entries) => {
      const next = place(entries);
      return next instanceof Error && listed ? own : next;
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.all(this.all().map((node) => node.close())).then(() => undefined);
  }

  destroy(): void {
    this.closed = true;
    for (const node of this.nodes.values()) node.destroy();
  }
}

/**
 * Attempts still waiting for a connection to `node` (its primary died, its slot moved) go to the
 * node the map now names for their slot: they were never sent, so nothing is replayed, and that
 * node admits them (seed 000 "Retries": a moved slot's new owner admits the retry). Without this
 * they would wait for a node that will not come back until `acquireTimeout`. Attempts behind an
 * ASKING stay: the ASK named their node.
 */
function reroute(node: EndpointNode, router: AttemptRouter): void {
  const targets = new Map<Command<unknown>, EndpointNode>();
  const moved = node.main.takeUnwritten((command) => {
    if (!(command instanceof ClusterAttempt) || command.asking !== undefined) return false;
    const target = router.nodeFor(command, node);
    if (target === node) return false;
    targets.set(command as Command<unknown>, target);
    return true;
  });
  for (const command of moved) {
    const attempt = command as ClusterAttempt;
    attempt.abandon();
    router.resend(attempt, targets.get(command)!);
  }
}

function ignore(): void {}
