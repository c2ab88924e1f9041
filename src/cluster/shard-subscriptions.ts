// Shard channels whose node fails (issue 11 "Routing": `ssubscribe` on the slot owner, resubscribed
// when the slot moves). A live owner that gives a slot away says so (a `sunsubscribe` push, which
// cluster-router.ts follows); a primary that dies says nothing, and its node's subscriber would go
// on reconnecting to a dead address while the promoted replica serves the slot. So a new map that
// no longer lists a node online moves that node's shard channels to their slot's owner by it
// (client/pubsub/move-subscriptions.ts).
import type { EndpointNode } from '../client/node/endpoint-node.js';
import { moveSubscriptions } from '../client/pubsub/move-subscriptions.js';
import type { PubSubListener } from '../client/pubsub/subscriber.js';

/**
 * For each node of `nodes` that `online` says failed: its confirmed shard channels whose slot
 * another node owns now, taken off it and subscribed there. A channel whose slot the map still
 * gives the failed node (its replica not promoted yet), or no node, stays: the subscriber keeps
 * reconnecting, and a later map moves it. Moving it then would only fail and forget it.
 */
export function moveFailedShardChannels(
  nodes: readonly EndpointNode[],
  online: (node: EndpointNode) => boolean,
  owner: (channel: string) => EndpointNode | Error,
): void {
  for (const node of nodes) {
    if (online(node)) continue;
    const owners = new Map<string, EndpointNode>();
    moveSubscriptions(
      node,
      (kind, name) => {
        if (kind !== 'shard') return false;
        const next = owner(name);
        if (next instanceof Error || next === node) return false;
        owners.set(name, next);
        return true;
      },
      (_, name) => owners.get(name)!,
    );
  }
}

/**
 * The server dropped a shard channel on `from`: its slot moved (PROTOCOL.md §2.4). Once `refreshed`
 * (the topology says where), its listeners are subscribed on the slot's owner by `owner`
 * (undefined: the client closed). What cannot be made again (no owner, the subscribe refused) is
 * told to `onPubSubError` as a failed restore, as moveSubscriptions does: the listeners are no
 * longer subscribed anywhere, and nobody's promise says so.
 */
export function followDroppedShardChannel(
  from: EndpointNode,
  channel: string,
  listeners: ReadonlySet<PubSubListener>,
  refreshed: Promise<void>,
  owner: () => EndpointNode | Error | undefined,
): void {
  const event = { source: 'restore', kind: 'shard', names: [channel] } as const;
  refreshed.then(() => {
    const node = owner();
    if (node === undefined) return;
    if (node instanceof Error) {
      from.subscriber.report(node, event);
      return;
    }
    const entries = [{ names: [channel], listeners: [...listeners] }];
    node.subscriber.subscribeAll('shard', entries).catch((error: unknown) => {
      // Closing meanwhile failed it: nothing was lost that the caller did not end.
      if (!node.subscriber.isClosed()) node.subscriber.report(error, event);
    });
  });
}
