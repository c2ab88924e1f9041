// Where a Cluster client's classic subscriptions live (issue 11 "Routing": `subscribe`/`psubscribe`
// on one node, moved when it fails). Classic messages reach every node of a cluster, so one node
// holds them all; when the router hears that node failed (its shared connection lost or replaced
// as unresponsive, a reconnect failed, or a new map no longer lists it as online; not a single slow
// command, since a move loses what is published meanwhile) they move to
// another live primary (client/pubsub/move-subscriptions.ts). Subscribes still in flight there
// move too, as a Sentinel switch moves them (failover/member-switch.ts): those not yet written at
// once, each caller's subscribe settling as the new holder's does; those written once the old node
// settles them, so that what it confirms meanwhile does not stay behind on it.
import type { EndpointNode } from '../client/node/endpoint-node.js';
import { moveSubscriptions } from '../client/pubsub/move-subscriptions.js';
import type { SubscriptionKind } from '../client/pubsub/subscriber.js';

export class ClassicSubscriptions {
  private holder: EndpointNode | undefined;

  constructor(
    /** A live primary for classic subscriptions other than `avoid`, or undefined when none is. */
    private readonly pick: (avoid: EndpointNode | undefined) => EndpointNode | undefined,
  ) {}

  /** The node that holds (or is to hold) the classic subscriptions; undefined when none is online. */
  node(): EndpointNode | undefined {
    this.holder ??= this.pick(undefined);
    return this.holder;
  }

  /** A new map: a holder it no longer lists as online has failed. */
  adopted(online: (node: EndpointNode) => boolean): void {
    if (this.holder !== undefined && !online(this.holder)) this.failed(this.holder);
  }

  /** `node` failed: if it holds the classic subscriptions, they move to another live primary. */
  failed(node: EndpointNode): void {
    if (node !== this.holder) return;
    const next = this.pick(node);
    if (next === undefined) return; // the only one: it keeps them and restores them on reconnect
    this.holder = next;
    moveSubscriptions(node, classic, () => next);
    node.subscriber.moveUnwritten((kind, entries) => next.subscriber.subscribeAll(kind, entries), classic);
    node.subscriber.whenPendingSettle()?.then(() => {
      const holder = this.holder;
      if (holder === undefined || holder === node || holder.subscriber.isClosed()) return;
      moveSubscriptions(node, classic, () => holder);
    });
  }
}

/** Shard channels stay: they are on their slot's owner and follow the slot. */
function classic(kind: SubscriptionKind): boolean {
  return kind !== 'shard';
}
