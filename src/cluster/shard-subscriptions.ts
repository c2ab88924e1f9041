// Shard channels whose node fails (issue 11 "Routing": `ssubscribe` on the slot owner, resubscribed
// when the slot moves). A live owner that gives a slot away says so (a `sunsubscribe` push, which
// cluster-router.ts follows); a primary that dies says nothing, and its node's subscriber would go
// on reconnecting to a dead address while the promoted replica serves the slot. So a new map that
// no longer lists a node online moves that node's shard channels to their slot's owner by it
// (client/pubsub/move-subscriptions.ts).
import type { EndpointNode } from '../client/node/endpoint-node.js';
import { moveSubscriptions } from '../client/pubsub/move-subscriptions.js';

/**
 * For each node of `nodes` that `online` says failed: its confirmed shard channels, taken off it
 * and subscribed on the node `owner` names for them (a failure goes to `onPubSubError`).
 */
export function moveFailedShardChannels(
  nodes: readonly EndpointNode[],
  online: (node: EndpointNode) => boolean,
  owner: (channel: string) => EndpointNode | Error,
): void {
  for (const node of nodes) {
    if (!online(node))
      moveSubscriptions(
        node,
        (kind) => kind === 'shard',
        (_, name) => owner(name),
      );
  }
}
