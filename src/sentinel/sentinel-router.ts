// The Sentinel router (issue 12, API.md "Sentinel", seed 000 "Sentinel"): the data nodes are the
// primary the sentinels name (confirmed by ROLE, sentinel-watcher.ts) and, for `readFrom`, its
// replicas; each has its own circuit. When the primary changes, commands not yet written move to
// the new primary and are admitted there, keeping their acquire deadline; the old primary gets no
// new write (its connections finish what is in flight, WATCH sessions fail with it). Every lost
// data connection and every READONLY-looking disconnect makes the watcher ask again.

import type { NodeFactory } from '../client/client-core.js';
import { clientErrorReporter } from '../client/diagnostics.js';
import { endpointKey } from '../client/endpoint.js';
import type { ClientCircuit } from '../client/node/circuit-gate.js';
import type { EndpointNode } from '../client/node/endpoint-node.js';
import type { ResolvedOptions } from '../client/options.js';
import { moveSubscriptions } from '../client/pubsub/move-subscriptions.js';
import { ReplicaTurns, readsFromReplica } from '../client/replica-reads.js';
import type { Router } from '../client/router.js';
import { RespireConnectionError, type RespireEndpoint, type RespireServerError } from '../errors.js';
import type { Command } from '../transport/command.js';
import type { ResolvedSentinelOptions } from './options.js';
import { ReadonlyWatch } from './readonly-watch.js';
import { SentinelWatcher } from './sentinel-watcher.js';

export class SentinelRouter implements Router {
  private watcher: SentinelWatcher | undefined;
  private primary: EndpointNode | undefined;
  private readonly replicas = new Map<string, EndpointNode>();
  /** Former primaries still finishing what was in flight when the switch was learnt. */
  private readonly retiring = new Set<EndpointNode>();
  /** `replicas` as an array, kept with it: a read picks from it without allocating. */
  private replicaList: EndpointNode[] = [];
  private readonly turns = new ReplicaTurns();
  /** A READONLY reply from the primary (a demoted one) makes the watcher ask again (PROTOCOL.md §3.10). */
  private readonly readonlyWatch = new ReadonlyWatch(() => {
    if (!this.closed) this.watcher?.resolveAgain('readonly').catch(ignore);
  });
  private closed = false;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly factory: NodeFactory,
    private readonly sentinel: ResolvedSentinelOptions,
  ) {}

  /** The current primary (before `connect` resolves, the first sentinel). */
  get endpoint(): RespireEndpoint {
    return this.primary?.endpoint ?? this.sentinel.endpoints[0]!;
  }

  /**
   * Asks the sentinels for the primary, confirms it with ROLE, and opens its connection; rejects
   * with RespireConnectionError naming the service when no sentinel answers or none knows it.
   */
  async start(): Promise<void> {
    const { options } = this;
    const watcher = await SentinelWatcher.start({
      sentinel: this.sentinel,
      data: {
        username: options.username,
        password: options.password,
        tls: options.tls,
        connectTimeout: options.connectTimeout,
        protocol: options.protocol,
        socketFactory: options.socketFactory,
      },
      clock: options.clock,
      random: options.random,
      watchReplicas: options.readFrom !== 'primary',
      onError: clientErrorReporter(watcher0(this.sentinel)),
    });
    this.watcher = watcher;
    if (this.closed) {
      watcher.destroy();
      throw new RespireConnectionError('the client is closed', { endpoint: watcher.primary, written: false });
    }
    const primary = this.makeNode(watcher.primary);
    this.primary = primary;
    watcher.onPrimaryChange((_from, to) => this.switchPrimary(to));
    watcher.onReplicasChange((replicas) => this.followReplicas(replicas));
    this.followReplicas(watcher.replicas());
    await primary.start();
  }

  send(command: Command<unknown>): void {
    const node = this.nodeFor(command);
    if (node instanceof Error) command.reject(node);
    else {
      if (node === this.primary) command.errorSink = this.readonlyWatch.sinkFor(command.errorSink);
      node.send(command);
    }
  }

  transactionNode(): EndpointNode {
    return this.primary!;
  }

  /**
   * A transaction's EXEC failed: never resent here (no redirects outside Cluster), but a write it
   * had refused READONLY makes the watcher ask again, as for a single command.
   */
  transactionRedirect(cause: RespireServerError): undefined {
    this.readonlyWatch.observe(cause);
    return undefined;
  }

  watchNode(): EndpointNode {
    return this.primary!;
  }

  subscriberNode(): EndpointNode {
    return this.primary!;
  }

  subscriberNodes(): readonly EndpointNode[] {
    return this.primary === undefined ? [] : [this.primary];
  }

  circuitOf(endpoint: RespireEndpoint): ClientCircuit | undefined {
    const key = endpointKey(endpoint);
    if (this.primary !== undefined && endpointKey(this.primary.endpoint) === key) return this.primary.circuit;
    return this.replicas.get(key)?.circuit;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([
      this.watcher?.close(),
      this.primary?.close(),
      ...[...this.replicas.values(), ...this.retiring].map((node) => node.close()),
    ]);
  }

  destroy(): void {
    this.closed = true;
    this.watcher?.destroy();
    this.primary?.destroy();
    for (const node of [...this.replicas.values(), ...this.retiring]) node.destroy();
  }

  /** Sends again a command taken unwritten from a node that is gone; it keeps its deadline. */
  private resend(command: Command<unknown>): void {
    const node = this.nodeFor(command);
    if (node instanceof Error) command.reject(node);
    else node.send(command, false);
  }

  /** The primary, or for a read-only command under `readFrom` a replica (round robin). */
  private nodeFor(command: Command<unknown>): EndpointNode | Error {
    const primary = this.primary!;
    const readFrom = this.options.readFrom;
    if (!readsFromReplica(command, readFrom)) return primary;
    const replicas = this.replicaList;
    const replica =
      this.turns.connected(replicas, command) ??
      (readFrom === 'replica' ? this.turns.any(replicas) : undefined);
    if (replica !== undefined) return replica;
    if (readFrom === 'replicaPreferred') return primary;
    return new RespireConnectionError(
      `no healthy replica of ${this.sentinel.serviceName} (readFrom: 'replica')`,
      {
        endpoint: primary.endpoint,
        written: false,
      },
    );
  }

  /**
   * The sentinels named a new primary (confirmed by ROLE): commands not yet written move to it and
   * are admitted there (blocking ones too, from the hold where they wait out a dead primary);
   * subscriptions are made again on it; the old one takes no new command. A transaction moves
   * only whole, before any of it is written; one with MULTI out and EXEC not fails, unsent.
   */
  private switchPrimary(to: RespireEndpoint): void {
    const old = this.primary;
    if (this.closed || old === undefined || endpointKey(old.endpoint) === endpointKey(to)) return;
    const next = this.makeNode(to);
    next.startInBackground();
    this.primary = next;
    old.transactions.replaced({ target: next.transactionTarget, tracker: next.transactions });
    for (const command of old.main.takeUnwritten()) next.send(command, false);
    old.moveBlocking((command) => this.resend(command));
    moveSubscriptions(old, all, () => next, true);
    this.retiring.add(old);
    // Its WATCH sessions end with it (seed 000: WATCH state stays on its connection), and so do the
    // streams, imports and durable batches holding or awaiting one of its dedicated connections:
    // their owners learn why, not that they ended them.
    const replaced = new RespireConnectionError(
      `the primary ${endpointKey(old.endpoint)} of ${this.sentinel.serviceName} was replaced by ${endpointKey(to)}; what held or awaited a dedicated connection to it (a WATCH session, a stream, an import, a durable batch) ended`,
      { endpoint: old.endpoint, written: false },
    );
    old.close(replaced).then(
      () => this.retiring.delete(old),
      () => this.retiring.delete(old),
    );
  }

  /**
   * Replica nodes follow the watcher's list: new ones made, gone ones closed. Reads not yet written
   * to a gone one move to another replica (or the primary under `replicaPreferred`) and are
   * admitted there, keeping their deadline; with `readFrom: 'replica'` and none left they fail.
   */
  private followReplicas(replicas: readonly RespireEndpoint[]): void {
    if (this.closed || this.options.readFrom === 'primary') return;
    const wanted = new Set(replicas.map(endpointKey));
    const gone: EndpointNode[] = [];
    for (const [key, node] of this.replicas) {
      if (wanted.has(key)) continue;
      this.replicas.delete(key);
      gone.push(node);
    }
    for (const replica of replicas) {
      const key = endpointKey(replica);
      if (this.replicas.has(key)) continue;
      const node = this.makeNode(replica, true);
      node.startInBackground();
      this.replicas.set(key, node);
    }
    this.replicaList = [...this.replicas.values()];
    for (const node of gone) {
      for (const command of node.main.takeUnwritten()) this.resend(command);
      node.moveBlocking((command) => this.resend(command));
      node.close().catch(ignore);
    }
  }

  /**
   * A node whose lost connections make the watcher ask again (a failover is the usual cause).
   * Replicas outside Cluster serve reads as they are: no READONLY (which needs cluster mode).
   */
  private makeNode(endpoint: RespireEndpoint, replica = false): EndpointNode {
    return this.factory.create(endpoint, {
      holdBlockingWhileDown: true,
      // A WATCH session's write refused READONLY: the same lookup as for a command (readonly-watch.ts).
      onSessionError: replica ? undefined : (error) => this.readonlyWatch.observe(error),
      onReconnecting: () => {
        if (!this.closed)
          this.watcher?.resolveAgain(replica ? 'replica reconnect' : 'reconnect').catch(ignore);
      },
    });
  }
}

/** Where the watcher's own background errors are said to come from: the first sentinel. */
function watcher0(sentinel: ResolvedSentinelOptions): RespireEndpoint {
  return sentinel.endpoints[0]!;
}

function ignore(): void {}

function all(): boolean {
  return true;
}
