// The router interface (issue 11 "First, the shape"): the client core hands every command to a
// router, which picks the node it goes to. Standalone is the one-node router (standalone-router.ts);
// Cluster and Sentinel implement the same interface above the core (src/cluster, src/sentinel),
// which never imports them (STYLE.md "Layers").
import type { RespireEndpoint, RespireServerError } from '../errors.js';
import type { Command } from '../transport/command.js';
import type { RedisArgument } from './commands/caller.js';
import type { ClientCircuit } from './node/circuit-gate.js';
import type { EndpointNode } from './node/endpoint-node.js';
import type { SubscriptionKind } from './pubsub/subscriber.js';
import type { RedirectPause, TransactionPlacer } from './transactions/transaction-run.js';

export interface Router {
  /** The endpoint the client names as its own: the standalone endpoint, or the first seed. */
  readonly endpoint: RespireEndpoint;
  /** Opens what the client needs before `connect` resolves; rejects with why it cannot. */
  start(): Promise<void>;
  /**
   * Sends one command (a single command, a batch entry, each attempt of a retried one) to the node
   * it belongs to, following redirects where the mode has them. It settles through its own promise.
   */
  send(command: Command<unknown>): void;
  /**
   * The node a transaction of these entries runs on (or a durability batch's writes: `what` names
   * the caller's kind in a CROSSSLOT error), or the error that fails it with nothing sent.
   */
  transactionNode(entries: readonly Command<unknown>[], what?: string): EndpointNode | Error;
  /**
   * Cluster: the node a transaction whose EXEC failed on `from` with a redirect (MOVED, ASK,
   * TRYAGAIN) is resent to, after `hops` redirects in all, with ASKING first or not, after
   * `pause`; undefined fails it (transaction-run.ts TransactionRedirect). Also where a WATCH
   * that failed so goes. Sentinel never redirects: it only looks at the error (READONLY).
   */
  transactionRedirect?(
    cause: RespireServerError,
    hops: number,
    from: EndpointNode,
    asking: boolean,
  ): { readonly node: EndpointNode; readonly asking: boolean; readonly pause?: RedirectPause } | undefined;
  /** The node a WATCH session on these keys runs on, or the error that fails `watch()`. */
  watchNode(keys: readonly RedisArgument[]): EndpointNode | Error;
  /** The node subscriptions of this kind and these names go to. */
  subscriberNode(kind: SubscriptionKind, names: readonly string[]): EndpointNode | Error;
  /** Every node a subscription may be on (for unsubscribing from all of them). */
  subscriberNodes(): readonly EndpointNode[];
  /**
   * Commands the router holds in no node's queue (Cluster: waiting out a TRYAGAIN or CLUSTERDOWN
   * backoff, a key lookup, a refresh), taken out unsent for a failover group's new member
   * (member-switch.ts); transactions waiting out a backoff start where `placeFor` puts them.
   */
  takeHeld?(placeFor: TransactionPlacer): Command<unknown>[];
  /** The circuit of one endpoint the client has a node for; undefined without `circuitBreaker`. */
  circuitOf(endpoint: RespireEndpoint): ClientCircuit | undefined;
  close(): Promise<void>;
  destroy(): void;
}
