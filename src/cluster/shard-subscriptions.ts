// Shard channels whose node fails (issue 11 "Routing": `ssubscribe` on the slot owner, resubscribed
// when the slot moves). A live owner that gives a slot away says so (a `sunsubscribe` push, which
// cluster-router.ts follows); a primary that dies says nothing, and its node's subscriber would go
// on reconnecting to a dead address while the promoted replica serves the slot. So a new map that
// no longer lists a node online moves that node's shard channels to their slot's owner by it. The
// old node's registry drops them first (as classic-subscriptions.ts does), so a node that comes back
// delivers nothing twice.
import type { EndpointNode } from '../client/node/endpoint-node.js';

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
    if (online(node)) continue;
    for (const { kind, name, listeners } of node.subscriber.confirmedSubscriptions()) {
      if (kind !== 'shard') continue;
      node.subscriber.unsubscribe('shard', name).catch(ignore);
      const next = owner(name);
      const report = (error: unknown): void =>
        (next instanceof Error ? node : next).subscriber.report(error, {
          source: 'restore',
          kind: 'shard',
          names: [name],
        });
      if (next instanceof Error) report(next);
      else for (const listener of listeners) next.subscriber.subscribe('shard', name, listener).catch(report);
    }
  }
}

function ignore(): void {}
