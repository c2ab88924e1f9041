// Where a keyless attempt that waited in vain for its node's connection goes once a new map comes
// (cluster-nodes.ts reroute; nothing of it was sent). A command for "one primary" goes to any
// primary when its own is no longer one. A fan-out part (DBSIZE, FLUSHALL: request-policy tips) or
// a SCAN page is pinned to its node's data instead: sent to another primary, which has a part of
// its own, it would count that shard twice and the waiting node's shard not at all, so it goes to
// the primary that took over the node's shard (a failover made the node its replica), and stays
// when none is known (it then fails there, never answered from the wrong shard).
import { commandSpecOf } from '../client/command-table.js';
import { endpointKey } from '../client/endpoint.js';
import type { EndpointNode } from '../client/node/endpoint-node.js';
import type { Command } from '../transport/command.js';
import { JoinedReply } from './joined-reply.js';
import type { ClusterNode, ClusterTopology } from './topology.js';

/** For a keyless attempt's `origin` waiting on `waitingOn`: the node to go to, 'any' primary, or undefined to stay. */
export function keylessTarget(
  origin: Command<unknown>,
  waitingOn: EndpointNode,
  topology: ClusterTopology,
): ClusterNode | 'any' | undefined {
  const index = topology.byKey.get(endpointKey(waitingOn.endpoint));
  const node = index === undefined ? undefined : topology.nodes[index]!;
  const online = node?.health === 'online';
  if (online && node.role === 'primary') return undefined;
  if (!(origin.observer instanceof JoinedReply)) return 'any';
  // An `all_nodes` part asks every node, replicas too: a demoted primary still is one.
  if (node === undefined || (online && commandSpecOf(origin.args)?.requestPolicy === 'all_nodes'))
    return undefined;
  const primary = topology.nodes[node.primary]!;
  return primary !== node && primary.role === 'primary' && primary.health === 'online' ? primary : undefined;
}
