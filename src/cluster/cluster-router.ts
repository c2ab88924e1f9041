// The Cluster router (issue 11, API.md "Cluster"): a node per cluster node, each with its own
// circuit; commands routed by their keys' slot through the slot map (readFrom picks a replica for
// read-only ones); MGET/MSET/DEL/UNLINK/EXISTS/TOUCH split per slot; keyless commands by their
// request-policy tip; MOVED, ASK, TRYAGAIN and CLUSTERDOWN followed (cluster-attempt.ts) at most
// `cluster.maxRedirections` hops; the topology refreshed at start, on MOVED, CLUSTERDOWN and node
// failures (rate-limited, coalesced), and every `cluster.refreshInterval`.

import type { NodeFactory } from '../client/client-core.js';
import { commandSpecOf } from '../client/command-table.js';
import type { RedisArgument } from '../client/commands/caller.js';
import { traceCommand } from '../client/diagnostics.js';
import { endpointKey } from '../client/endpoint.js';
import type { ClientCircuit } from '../client/node/circuit-gate.js';
import type { EndpointNode } from '../client/node/endpoint-node.js';
import type { ResolvedOptions } from '../client/options.js';
import type { SubscriptionKind } from '../client/pubsub/subscriber.js';
import type { Router } from '../client/router.js';
import type { RedirectPause, TransactionPlacer } from '../client/transactions/transaction-run.js';
import {
  RespireCircuitOpenError,
  RespireConnectionError,
  type RespireEndpoint,
  type RespireServerError,
  RespireTimeoutError,
} from '../errors.js';
import { clientClosedError } from '../transport/channel-errors.js';
import { type Command, CommandFlags } from '../transport/command.js';
import { describeEndpoint } from '../util/describe-endpoint.js';
import { ClassicSubscriptions } from './classic-subscriptions.js';
import { ClusterAttempt, type RedirectFollower, stillToSend } from './cluster-attempt.js';
import { type AttemptRouter, ClusterNodes } from './cluster-nodes.js';
import { clusterScanReply, isScan, planScanPage } from './cluster-scan.js';
import {
  ANY_SLOT,
  CROSS_SLOT,
  commandSlot,
  crossSlotError,
  sharedSlot,
  specSlot,
  UNKNOWN_KEYS,
} from './command-slot.js';
import { aggregateReplies } from './fan-out.js';
import { JoinedReply } from './joined-reply.js';
import { KeyLookup, lookupOn, lookupTimeout } from './key-lookup.js';
import { keySlot } from './key-slot.js';
import { withMovedSlot } from './moved-slot.js';
import { NodeChoice } from './node-choice.js';
import { keysOfPart } from './partial-write.js';
import { type ClusterRedirect, clusterRedirectOf } from './redirect.js';
import { RedirectBackoff } from './redirect-backoff.js';
import { followDroppedShardChannel, moveFailedShardChannels } from './shard-subscriptions.js';
import { type SplitCommand, slotOrSplit } from './split-command.js';
import type { ClusterTopology } from './topology.js';
import { TopologyRefresher } from './topology-refresher.js';
import { keylessTarget } from './waiting-keyless.js';

export class ClusterRouter implements Router, RedirectFollower, AttemptRouter {
  private readonly nodes: ClusterNodes;
  /** Which node serves a command, by the current map (node-choice.ts). */
  private readonly choice: NodeChoice;
  private readonly refresher: TopologyRefresher;
  /** The node holding `subscribe`/`psubscribe`, moved when it fails. */
  private readonly classic = new ClassicSubscriptions((avoid) => this.choice.classicCandidate(avoid));
  /** Keys of commands the table does not know, from the server (key-lookup.ts). */
  private readonly keyLookup = new KeyLookup((args, timeoutMs) =>
    lookupOn(this.choice.anyPrimary(), args, timeoutMs),
  );
  private closed = false;
  /** Commands in no node's queue: waiting out a TRYAGAIN or CLUSTERDOWN backoff, a lookup, a refresh. */
  private readonly backingOff: RedirectBackoff;

  constructor(
    private readonly options: ResolvedOptions,
    factory: NodeFactory,
  ) {
    this.backingOff = new RedirectBackoff(options.clock);
    this.refresher = new TopologyRefresher(options, (topology) => {
      const online = (node: EndpointNode): boolean => {
        const index = topology.byKey.get(endpointKey(node.endpoint));
        return index !== undefined && topology.nodes[index]!.health === 'online';
      };
      this.classic.adopted(online);
      // Before nodes the map dropped are closed (shard-subscriptions.ts).
      moveFailedShardChannels(this.nodes.all(), online, (channel) => this.subscriberNode('shard', [channel]));
      this.nodes.adopt(topology, this);
    });
    this.nodes = new ClusterNodes(
      factory,
      options.readFrom,
      (node) => {
        this.refresher.requestRefresh();
        this.classic.failed(node);
        // A SCAN step on it starts again: the server may be another process now (cluster-scan.ts).
        this.choice.nodeLost(node);
      },
      (from, channel, listeners) =>
        followDroppedShardChannel(from, channel, listeners, this.refresher.requestRefresh(), () =>
          this.closed ? undefined : this.subscriberNode('shard', [channel]),
        ),
    );
    this.choice = new NodeChoice(
      () => this.topology,
      this.nodes,
      options.readFrom,
      () => this.refresher.requestRefresh(),
      options.endpoint,
    );
  }

  /** The first seed: the client's name for the cluster. */
  get endpoint(): RespireEndpoint {
    return this.options.endpoint;
  }

  private get topology(): ClusterTopology {
    return this.refresher.topology!;
  }

  /** Reads the topology from the seeds (in turn); rejects when none answers. */
  async start(): Promise<void> {
    await this.refresher.start();
  }

  send(command: Command<unknown>): void {
    const args = command.args;
    // One spec lookup, and each key hashed once, per command (the hot path).
    const spec = commandSpecOf(args);
    let slot: number;
    if (spec === undefined) slot = this.keyLookup.slotNow(args) ?? UNKNOWN_KEYS;
    else {
      const split = slotOrSplit(spec, args);
      if (split === undefined) slot = specSlot(spec, args, UNKNOWN_KEYS);
      else if (typeof split === 'number') slot = split;
      else {
        this.sendSplit(command, split);
        return;
      }
    }
    if (slot === UNKNOWN_KEYS) {
      // A command the table does not know: its slot once the server said (key-lookup.ts), asked
      // under the caller's deadline; a lookup that used it all up fails the call unsent.
      const timeoutMs = command.timeoutMs > 0 ? command.timeoutMs : this.options.commandTimeout;
      const started = this.options.clock.now();
      this.backingOff.after(command, this.keyLookup.slotOf(args, timeoutMs), (found) => {
        if (this.closed) command.reject(clientClosedError(this.options.endpoint));
        else if (!stillToSend(command)) return;
        else if (timeoutMs > 0 && this.options.clock.now() - started >= timeoutMs)
          command.reject(lookupTimeout(args, timeoutMs, this.options.endpoint));
        else this.sendToSlot(command, found ?? ANY_SLOT);
      });
      return;
    }
    this.sendToSlot(command, slot);
  }

  /** MGET, MSET, DEL… across slots: a part per slot, sent concurrently, joined in argument order. */
  private sendSplit(command: Command<unknown>, split: SplitCommand): void {
    const joined = new JoinedReply(
      command,
      split.parts.map((part) => part.args),
      (replies) => split.join(replies),
      split.writes ? (i) => keysOfPart(split.parts[i]!.keyNumbers) : undefined,
    );
    traceCommand(command, this.options.endpoint, this.options.clock);
    const lost = (command.flags & CommandFlags.Retry) !== 0 ? this.lostOwnerOf(split) : undefined;
    if (lost !== undefined) {
      // Seed 000 "Retries", as for a single command (sendToSlot): a part's owner is disconnected
      // and open; the other primaries are asked for the map first, then every part goes by it.
      this.backingOff.within(command, this.refresher.refresh(), this.options.acquireTimeout, lost, () => {
        if (stillToSend(command)) this.sendParts(joined, split);
      });
      return;
    }
    this.sendParts(joined, split);
  }

  /** The endpoint of a split command's part's node that lost its owner (NodeChoice.ownerLost), if any. */
  private lostOwnerOf(split: SplitCommand): RespireEndpoint | undefined {
    for (const part of split.parts) {
      const node = this.choice.primaryForSlot(part.slot);
      if (!(node instanceof Error) && this.choice.ownerLost(node)) return node.endpoint;
    }
    return undefined;
  }

  private sendParts(joined: JoinedReply, split: SplitCommand): void {
    // A write a part of which its node's circuit rejects: rejected, no part sent (joined-reply.ts).
    if (split.writes && joined.rejectedBefore((part, i) => this.choice.forSlot(split.parts[i]!.slot, part)))
      return;
    joined.parts.forEach((part, i) => {
      this.dispatch(part, split.parts[i]!.slot, 0);
    });
  }

  /** `send` once the command's slot (or ANY_SLOT, CROSS_SLOT) is known. */
  private sendToSlot(command: Command<unknown>, slot: number): void {
    if (slot === CROSS_SLOT) {
      command.reject(crossSlotError(String(command.args[0])));
      return;
    }
    if (slot === ANY_SLOT) {
      this.sendKeyless(command);
      return;
    }
    const node = this.choice.forSlot(slot, command);
    if (node instanceof Error) {
      command.reject(node);
      return;
    }
    traceCommand(command, node.endpoint, this.options.clock);
    if ((command.flags & CommandFlags.Retry) !== 0 && this.choice.ownerLost(node)) {
      // Seed 000 "Retries": ask the other primaries for the slot's owner first (by the retry's acquire
      // deadline: within); a new owner admits it, the same one (or none) rejects it without connecting.
      const refreshed = this.refresher.refresh();
      this.backingOff.within(command, refreshed, this.options.acquireTimeout, node.endpoint, (at) =>
        this.dispatch(command, slot, 0, at),
      );
      return;
    }
    this.write(command, node, 0, false);
  }

  transactionNode(entries: readonly Command<unknown>[], what = 'MULTI'): EndpointNode | Error {
    const slot = sharedSlot(entries.map((entry) => commandSlot(entry.args)));
    if (slot === CROSS_SLOT) return crossSlotError(what);
    return slot === ANY_SLOT ? this.choice.anyPrimary() : this.choice.primaryForSlot(slot);
  }

  watchNode(keys: readonly RedisArgument[]): EndpointNode | Error {
    const slot = sharedSlot(keys.map((key) => keySlot(key)));
    if (slot === CROSS_SLOT) return crossSlotError('WATCH');
    return slot === ANY_SLOT ? this.choice.anyPrimary() : this.choice.primaryForSlot(slot);
  }

  /**
   * Shard channels on their slot's primary; channels and patterns on one node, since classic
   * pub/sub reaches every node of the cluster (classic-subscriptions.ts moves them when it fails).
   */
  subscriberNode(kind: SubscriptionKind, names: readonly string[]): EndpointNode | Error {
    if (kind !== 'shard') return this.classic.node() ?? this.choice.noNodeError();
    const slot = sharedSlot(names.map((name) => keySlot(name)));
    if (slot === CROSS_SLOT) return crossSlotError('SSUBSCRIBE');
    return slot === ANY_SLOT ? this.choice.anyPrimary(0) : this.choice.primaryForSlot(slot);
  }

  subscriberNodes(): readonly EndpointNode[] {
    return this.nodes.all();
  }

  circuitOf(endpoint: RespireEndpoint): ClientCircuit | undefined {
    return this.nodes.circuitOf(endpoint);
  }

  /** Router: the commands of `backingOff`, taken out unsent; its transactions go to `placeFor`. */
  takeHeld(placeFor: TransactionPlacer): Command<unknown>[] {
    return this.backingOff.takeCommands(placeFor);
  }

  close(): Promise<void> {
    this.closed = true;
    this.refresher.stop();
    this.backingOff.failAll(this.options.endpoint);
    return this.nodes.close();
  }

  destroy(): void {
    this.closed = true;
    this.refresher.stop();
    this.backingOff.failAll(this.options.endpoint);
    this.nodes.destroy();
  }

  /** RedirectFollower: MOVED and ASK to their target, TRYAGAIN and CLUSTERDOWN after a pause. */
  follow(attempt: ClusterAttempt, error: RespireServerError): boolean {
    if (this.closed || attempt.hops >= this.options.cluster.maxRedirections) return false;
    const redirect = this.classify(error, attempt.node);
    if (redirect instanceof Error) {
      // addressMap threw for the target: the command fails with why (never out of the reply loop).
      attempt.origin.reject(redirect);
      return true;
    }
    if (redirect === undefined) return false;
    const origin = attempt.origin;
    const hops = attempt.hops + 1;
    switch (redirect.kind) {
      case 'moved':
      case 'ask': {
        const target = this.redirectTarget(redirect);
        if (target === undefined)
          this.backingOff.later(hops, origin, () => this.dispatch(origin, redirect.slot, hops));
        else this.write(origin, target, hops, redirect.kind === 'ask');
        return true;
      }
      case 'clusterdown':
        this.refresher.requestRefresh();
        this.backingOff.later(hops, origin, () => this.dispatch(origin, commandSlot(origin.args), hops));
        return true;
      case 'tryagain':
        this.backingOff.later(hops, origin, () => this.write(origin, attempt.node, hops, false));
        return true;
    }
  }

  /**
   * A transaction whose EXEC a MOVED or ASK aborted (PROTOCOL.md §2.3) goes whole to the target,
   * ASKING before MULTI after an ASK; after TRYAGAIN, to the same node as before, after the
   * backoff. CLUSTERDOWN and unusable targets reach the caller.
   */
  transactionRedirect(
    cause: RespireServerError,
    hops: number,
    from: EndpointNode,
    asking: boolean,
  ): { node: EndpointNode; asking: boolean; pause?: RedirectPause } | undefined {
    if (this.closed || hops > this.options.cluster.maxRedirections) return undefined;
    const redirect = this.classify(cause, from);
    if (redirect instanceof Error) return undefined;
    if (redirect?.kind === 'tryagain') {
      return { node: from, asking, pause: (go, paused) => this.backingOff.later(hops, paused, go) };
    }
    if (redirect?.kind !== 'moved' && redirect?.kind !== 'ask') return undefined;
    const node = this.redirectTarget(redirect);
    return node === undefined ? undefined : { node, asking: redirect.kind === 'ask' };
  }

  /** RedirectFollower: a connection failure or a reply deadline on a node may mean it moved or died. */
  attemptFailed(_attempt: ClusterAttempt, error: unknown): void {
    if (error instanceof RespireCircuitOpenError) return;
    if (
      error instanceof RespireConnectionError ||
      (error instanceof RespireTimeoutError && error.phase !== 'acquire')
    ) {
      this.refresher.requestRefresh();
    }
  }

  /**
   * The node a MOVED or ASK names; a MOVED patches the slot at once and schedules a refresh. Undefined
   * when the server named no usable address (the refresh then brings the owner).
   */
  private redirectTarget(redirect: ClusterRedirect & { kind: 'moved' | 'ask' }): EndpointNode | undefined {
    const { target, slot } = redirect;
    if (redirect.kind === 'moved') {
      this.refresher.requestRefresh();
      if (target !== null) this.refresher.patch((topology) => withMovedSlot(topology, slot, target));
    }
    return target === null ? undefined : this.nodes.at(target);
  }

  /** Sends the origin (or a part) by its slot, as a new hop; a keyless one to any primary. */
  private dispatch(origin: Command<unknown>, slot: number, hops: number, deadline = 0): void {
    if (!stillToSend(origin)) return;
    const node = slot < 0 ? this.choice.anyPrimary() : this.choice.forSlot(slot, origin);
    if (node instanceof Error) origin.reject(node);
    else this.write(origin, node, hops, false, deadline);
  }

  /** One attempt on `node` (ASKING right before it with `asking`), by acquire deadline `at` (0: none yet). */
  private write(origin: Command<unknown>, node: EndpointNode, hops: number, asking: boolean, at = 0): void {
    if (!stillToSend(origin)) return;
    const attempt = new ClusterAttempt(origin, node, hops, this, asking, at);
    node.send(attempt as Command<unknown>, false, attempt.asking as Command<unknown> | undefined);
  }

  /** Keyless: SCAN node by node; by the request-policy tip to every primary (or node); else one primary. */
  private sendKeyless(command: Command<unknown>): void {
    if (isScan(command.args)) {
      this.sendScan(command);
      return;
    }
    // A command the table does not know: the tips of the server's spec (key-lookup.ts).
    const spec = commandSpecOf(command.args) ?? this.keyLookup.specNow(command.args);
    const policy = spec?.requestPolicy;
    if (policy === 'all_shards' || policy === 'all_nodes') {
      const targets = this.choice.fanOut(policy);
      if (targets.length === 0) {
        command.reject(this.choice.noNodeError());
        return;
      }
      const nodes = targets.map((target) => this.nodes.at(target));
      const joined = new JoinedReply(
        command,
        targets.map(() => command.args),
        (replies) => aggregateReplies(spec?.responsePolicy, replies),
        spec?.flags.has('write') === true
          ? (i) => `the part on ${describeEndpoint(nodes[i]!.endpoint)}`
          : undefined,
        spec?.responsePolicy === 'one_succeeded',
      );
      traceCommand(command, this.options.endpoint, this.options.clock);
      // A part its node's circuit rejects: rejected whole, no part sent (FLUSHALL: joined-reply.ts).
      if (joined.rejectedBefore((_, i) => nodes[i]!)) return;
      for (const [i, part] of joined.parts.entries()) this.write(part, nodes[i]!, 0, false);
      return;
    }
    const node = this.choice.anyPrimary();
    if (node instanceof Error) {
      command.reject(node);
      return;
    }
    traceCommand(command, node.endpoint, this.options.clock);
    this.write(command, node, 0, false);
  }

  /** One SCAN page, pinned to the primary that serves the slot the cursor names (cluster-scan.ts). */
  private sendScan(command: Command<unknown>): void {
    const plan = planScanPage(command.args, this.topology, this.choice.view().history);
    if (plan instanceof Error) {
      command.reject(plan);
      return;
    }
    const node = this.nodes.at(this.topology.nodes[plan.owner]!);
    // The next cursor by the map when the page's reply comes.
    const joined = new JoinedReply(command, [plan.page], (replies) => {
      const view = this.choice.view();
      return clusterScanReply(replies[0]!, plan, view.topology, view.history);
    });
    traceCommand(command, node.endpoint, this.options.clock);
    this.write(joined.parts[0]!, node, 0, false);
  }

  /** AttemptRouter: a waiting attempt's node by the current map (keyless ones: waiting-keyless.ts). */
  nodeFor(attempt: ClusterAttempt, waitingOn: EndpointNode): EndpointNode {
    const slot = commandSlot(attempt.origin.args);
    const keyless = slot < 0 ? keylessTarget(attempt.origin, waitingOn, this.topology) : 'any';
    if (keyless !== 'any') return keyless === undefined ? waitingOn : this.nodes.at(keyless);
    const node = slot < 0 ? this.choice.anyPrimary() : this.choice.forSlot(slot, attempt.origin);
    return node instanceof Error ? waitingOn : node;
  }

  /** AttemptRouter: an attempt taken from a node it waited on in vain, sent on `node` by its deadline. */
  resend(attempt: ClusterAttempt, node: EndpointNode): void {
    const next = new ClusterAttempt(attempt.origin, node, attempt.hops, this, false, attempt.deadline);
    if (stillToSend(attempt.origin)) node.send(next as Command<unknown>, false);
  }

  /** The redirect an error reply from `node` asks for, or addressMap's error (redirect.ts). */
  private classify(error: RespireServerError, node: EndpointNode) {
    const context = { blankHost: this.announcedHost(node), addressMap: this.options.cluster.addressMap };
    return clusterRedirectOf(error, context);
  }

  /** The announced host of a node: a blank host in its MOVED or ASK stands for it. */
  private announcedHost(node: EndpointNode): string {
    const index = this.topology.byKey.get(endpointKey(node.endpoint));
    return index === undefined ? node.endpoint.host : this.topology.nodes[index]!.announced.host;
  }
}
