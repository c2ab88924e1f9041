// Moving a node's confirmed subscriptions to other nodes: a Cluster node that failed (classic ones
// to another primary, shard channels to their slot's owner) and a replaced Sentinel primary. One
// subscribe command per target and kind, every name with all its listeners (Subscriber.subscribeAll),
// not one per listener. The old node's registry drops them first, so a node that comes back delivers
// nothing twice; the UNSUBSCRIBE sent there (or the replacement of its silent connection) ends them
// on the server. What cannot be made again (the target refused it, or there is no target) is told
// to `onPubSubError` as a failed restore: the listeners are no longer subscribed anywhere.
import type { EndpointNode } from '../node/endpoint-node.js';
import type { PubSubListener, SubscriptionKind } from './subscriber.js';

type Entry = { readonly names: string[]; readonly listeners: readonly PubSubListener[] };

/**
 * `from`'s confirmed subscriptions that `take` accepts, each taken off it and subscribed on
 * the node `to` names for it (or reported with `to`'s error). `from` unsubscribes them, one
 * command per kind, unless it is `closing` (a replaced Sentinel primary): it forgets them, and
 * closing ends them on the server.
 */
export function moveSubscriptions(
  from: EndpointNode,
  take: (kind: SubscriptionKind, name: string) => boolean,
  to: (kind: SubscriptionKind, name: string) => EndpointNode | Error,
  closing = false,
): void {
  const moves = new Map<EndpointNode, Map<SubscriptionKind, Entry[]>>();
  const taken = new Map<SubscriptionKind, string[]>();
  for (const { kind, name, listeners } of from.subscriber.confirmedSubscriptions()) {
    if (!take(kind, name)) continue;
    const names = taken.get(kind) ?? [];
    taken.set(kind, names);
    names.push(name);
    const next = to(kind, name);
    if (next instanceof Error) {
      from.subscriber.report(next, { source: 'restore', kind, names: [name] });
      continue;
    }
    const byKind = moves.get(next) ?? new Map<SubscriptionKind, Entry[]>();
    moves.set(next, byKind);
    const entries = byKind.get(kind) ?? [];
    byKind.set(kind, entries);
    entries.push({ names: [name], listeners });
  }
  // A closing `from` (a replaced Sentinel primary, which as a replica still hears every PUBLISH)
  // forgets them at once: until its connection closes, it would deliver each message a second time.
  for (const [kind, names] of taken) {
    if (closing) from.subscriber.forget(kind, names);
    else from.subscriber.unsubscribe(kind, names).catch(ignore);
  }
  for (const [next, byKind] of moves) {
    for (const [kind, entries] of byKind) {
      next.subscriber.subscribeAll(kind, entries).catch((error: unknown) =>
        next.subscriber.report(error, {
          source: 'restore',
          kind,
          names: entries.flatMap((entry) => entry.names),
        }),
      );
    }
  }
}

function ignore(): void {}
