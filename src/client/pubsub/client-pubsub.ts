// The client's side of pub/sub across its nodes: where a subscribe goes (the node the router
// names, followed when a Sentinel switch closes it under the call), unsubscribing on every node,
// and the `onPubSubError` listeners that every node's subscriber gets, present and future.
import { RespireConnectionError, RespireTimeoutError } from '../../errors.js';
import type { EndpointNode } from '../node/endpoint-node.js';
import type { Router } from '../router.js';
import type { PubSubErrorListener, PubSubListener, SubscriptionKind } from './subscriber.js';

export class ClientPubSub {
  /**
   * Pub/sub error listeners, added to every node's subscriber (present and future), each with the
   * function that takes it off each live node: a Cluster node made after it was added included, a
   * node closed for good let go (`forget`), so that a long-lived client keeps none of them.
   */
  private readonly errorListeners = new Set<{
    readonly listener: PubSubErrorListener;
    readonly removers: Map<EndpointNode, () => void>;
  }>();

  constructor(
    private readonly router: () => Router,
    /** `redis.client.errors`, told what a caller of a (un)subscribe method receives, once per call. */
    private readonly errorSink: ((error: unknown) => void) | undefined,
    private readonly closing: () => boolean,
  ) {}

  /** A node the router just made: it gets every error listener added so far. */
  adopt(node: EndpointNode): void {
    for (const added of this.errorListeners)
      added.removers.set(node, node.subscriber.onError(added.listener));
  }

  /** A node closed for good (a Cluster node dropped, a Sentinel primary replaced). */
  forget(node: EndpointNode): void {
    for (const added of this.errorListeners) added.removers.delete(node);
  }

  subscribe(
    kind: SubscriptionKind,
    names: string | readonly string[],
    listener: PubSubListener,
  ): Promise<void> {
    return this.counted(this.subscribeOn(kind, typeof names === 'string' ? [names] : names, listener));
  }

  unsubscribe(
    kind: SubscriptionKind,
    names: string | readonly string[] | undefined,
    listener: PubSubListener | undefined,
  ): Promise<void> {
    const nodes = this.router().subscriberNodes();
    return this.counted(
      Promise.all(nodes.map((node) => node.subscriber.unsubscribe(kind, names, listener))).then(
        () => undefined,
      ),
    );
  }

  /** `redis.onPubSubError(listener)`: returns the function that removes it from every node. */
  onError(listener: PubSubErrorListener): () => void {
    const nodes = this.router().subscriberNodes();
    const added = {
      listener,
      removers: new Map(nodes.map((node) => [node, node.subscriber.onError(listener)] as const)),
    };
    this.errorListeners.add(added);
    return () => {
      this.errorListeners.delete(added);
      for (const remove of added.removers.values()) remove();
      added.removers.clear();
    };
  }

  /**
   * Subscribes on the node the router names. When that node's subscriber was closed under the
   * subscribe (a Sentinel switch closes the old primary's, after moving only what the server had
   * confirmed), the subscription is held nowhere, whether it failed there unsent or was confirmed
   * there too late: it is made on the node the router names now (seed 000 "Sentinel": what was
   * not accepted moves). Subscribing again is idempotent.
   */
  private async subscribeOn(
    kind: SubscriptionKind,
    names: readonly string[],
    listener: PubSubListener,
  ): Promise<void> {
    for (;;) {
      const node = this.router().subscriberNode(kind, names);
      if (node instanceof Error) throw node;
      let failure: unknown;
      try {
        await node.subscriber.subscribe(kind, names, listener);
      } catch (error) {
        if (!(error instanceof RespireConnectionError || error instanceof RespireTimeoutError)) throw error;
        failure = error;
      }
      const moved =
        node.subscriber.isClosed() && !this.closing() && this.router().subscriberNode(kind, names) !== node;
      if (moved) continue;
      if (failure !== undefined) throw failure;
      return;
    }
  }

  private counted(promise: Promise<void>): Promise<void> {
    if (this.errorSink !== undefined) promise.catch(this.errorSink);
    return promise;
  }
}
