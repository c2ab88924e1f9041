// Starts a Redis Cluster of real redis-server processes on free loopback ports (3 primaries with a
// replica each by default), waits until every node agrees, drives failovers, and always stops it.
// No vitest import here: `npm run bench` compiles and uses this file too (see vitest-redis.ts).
import { type AdminOptions, type AdminTarget, adminCommand, type Reply } from './admin-command.js';
import { clusterAgreement, everyoneKnowsEveryone, type RunningNode } from './cluster-agreement.js';
import {
  finishSlotMigration,
  type MigrationContext,
  moveSlotKeys,
  startSlotMigration,
} from './cluster-migration.js';
import { nodeConfig, poolKey } from './cluster-node-config.js';
import { clusterPoolEnabled, ledgerServers, poolCluster, takePooledCluster } from './cluster-pool.js';
import { type ClusterBaseline, hasBaselineLayout, readBaseline, restoreCluster } from './cluster-reuse.js';
import {
  type NodeEntry,
  parseClusterNodes,
  type SlotRange,
  slotInRanges,
  splitSlots,
} from './cluster-view.js';
import { isProcessAlive } from './process-alive.js';
import { adoptRedisServer, handOver, type RedisServer, startRedisServer } from './redis-server.js';
import type { WireArgument } from './resp-wire.js';
import { takeTopologySlot } from './topology-gate.js';
import { waitUntil } from './wait-until.js';

export type { SlotRange } from './cluster-view.js';

export interface RedisClusterOptions {
  /** Default 3. */
  primaries?: number;
  /** Default 1. */
  replicasPerPrimary?: number;
  /**
   * `cluster-node-timeout`: how long a silent node takes to be suspected, so a SIGKILLed primary's
   * replica is promoted about 1–2 s after it. Default 2,000 ms: shorter makes a node starved of CPU
   * on a loaded machine look dead.
   */
  nodeTimeoutMs?: number;
  /** `appendonly yes` on every node (data then survives `restartNode`). Default false. */
  appendOnly?: boolean;
  /** `appendfsync` with `appendOnly`. Default `everysec`. */
  appendFsync?: 'always' | 'everysec' | 'no';
  /** `requirepass` and `masterauth` on every node; the kit authenticates with it. */
  password?: string;
  /** Extra config lines for every node. */
  configLines?: readonly string[];
  /** Deadline for the cluster to agree after a start, failover, migration or restart. Default 60,000 ms. */
  settleTimeoutMs?: number;
}

/** A node as the agreed view showed it last (after the latest start, failover, migration or restart). */
export interface ClusterNode {
  readonly id: string;
  readonly host: string;
  readonly port: number;
  readonly busPort: number;
  readonly url: string;
  readonly role: 'primary' | 'replica';
  /** The primary a replica follows. */
  readonly primaryId: string | undefined;
  /** The slots a primary serves (empty for replicas). */
  readonly slots: readonly SlotRange[];
  /** False after `killPrimary` until `restartNode`. */
  readonly running: boolean;
}

/** A node, or anything naming one by its id (a `ClusterNode` from an older snapshot works too). */
export type NodeRef = { readonly id: string };

export interface SlotMigration {
  readonly slot: number;
  readonly source: ClusterNode;
  readonly target: ClusterNode;
}

export interface RedisCluster {
  /** Every node, in start order, as last agreed. */
  readonly nodes: readonly ClusterNode[];
  readonly primaries: readonly ClusterNode[];
  /** `host:port` of every running node, for a client's `endpoints`. */
  readonly endpoints: readonly { host: string; port: number }[];
  node(ref: NodeRef): ClusterNode;
  replicasOf(primary: NodeRef): ClusterNode[];
  ownerOf(slot: number): ClusterNode;
  /** `CLUSTER KEYSLOT key`, asked of a running node. */
  keySlot(key: string | Uint8Array): Promise<number>;
  /** The primary owning `key`'s slot. */
  nodeFor(key: string | Uint8Array): Promise<ClusterNode>;
  /** Run one command on a node over the kit's own connection (never the client under test). */
  command(node: NodeRef, args: readonly WireArgument[], options?: AdminOptions): Promise<Reply>;
  /** Move `slot` with its keys to `target` the way `redis-cli --cluster reshard` does; resolves once agreed. */
  migrateSlot(slot: number, target: NodeRef): Promise<void>;
  /** IMPORTING on the target, MIGRATING on the source: from here the source answers ASK for missing keys. */
  beginMigration(slot: number, target: NodeRef): Promise<SlotMigration>;
  /** Move up to `limit` of the slot's keys (all when omitted) during a migration; resolves with how many moved. */
  moveKeys(migration: SlotMigration, limit?: number): Promise<number>;
  /** Move the remaining keys, SETSLOT NODE on every primary, and wait until every node agrees. */
  finishMigration(migration: SlotMigration): Promise<void>;
  /** `CLUSTER FAILOVER` on the primary's first replica; resolves with the promoted node once agreed. */
  failover(primary: NodeRef): Promise<ClusterNode>;
  /** SIGKILL a primary; resolves with the replica the cluster promoted, once every running node agrees. */
  killPrimary(primary: NodeRef): Promise<ClusterNode>;
  /**
   * SIGKILL a primary whose replicas were told not to take over (`cluster-replica-no-failover`);
   * resolves with the running nodes once every one of them marks it `fail`. It keeps its slots.
   */
  killPrimaryUnreplaced(primary: NodeRef): Promise<ClusterNode[]>;
  /** How many times the nodes have run `command` (INFO commandstats name, e.g. `cluster|shards`). */
  commandCalls(nodes: readonly NodeRef[], command: string): Promise<number>;
  /**
   * Restart a node (killed or not) on its port with its node id (nodes.conf is kept); resolves once
   * it has rejoined and everyone agrees. Without `appendOnly` it comes back empty: a primary back
   * within the node timeout keeps its slots (and its replica then resyncs to nothing), as in Redis.
   */
  restartNode(node: NodeRef): Promise<void>;
  /** Wait until every running node agrees (also for a test that changed the cluster itself). */
  settle(): Promise<void>;
  /** The server process behind a node (its log, pid, `kill('SIGSTOP')`…). */
  server(node: NodeRef): RedisServer;
  /** Every node's recent log, for a failed test. */
  logs(): string;
  stop(): Promise<void>;
  /**
   * Done with it: within a test run (cluster-pool.ts), the cluster is brought back to how it
   * started (cluster-reuse.ts) and left for the next file asking for the same options; otherwise,
   * or when that cannot be done, it is stopped.
   */
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Start the servers, join them into one cluster and wait until every node agrees; or, within a
 * test run, adopt a cluster with the same options that an earlier file released.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  return (await adoptReleasedCluster(options)) ?? (await startFreshCluster(options));
}

async function adoptReleasedCluster(options: RedisClusterOptions): Promise<RedisCluster | undefined> {
  const pooled = takePooledCluster<ClusterBaseline>(poolKey(options));
  if (pooled === undefined) return undefined;
  const servers = pooled.servers.map(adoptRedisServer);
  let cluster: RedisClusterProcess | undefined;
  try {
    cluster = new RedisClusterProcess(servers, options, await takeTopologySlot(), pooled.baseline);
    // Waiting in the pool, it may have failed over on its own (a node starved of CPU, say).
    if (await cluster.adopt(pooled.ids)) return cluster;
  } catch {
    // Not as it was left: start a fresh one.
  }
  await (cluster ? cluster.stop() : Promise.all(servers.map((server) => server.stop())));
  return undefined;
}

async function startFreshCluster(options: RedisClusterOptions): Promise<RedisCluster> {
  const primaryCount = options.primaries ?? 3;
  const replicasEach = options.replicasPerPrimary ?? 1;
  // The processes start before the wait for the machine's topology slot: idle, unmet nodes cost
  // nothing, and their start-up is then off the chain of files that hold the slot in turn.
  const started = await Promise.allSettled(
    Array.from({ length: primaryCount * (1 + replicasEach) }, () =>
      startRedisServer({ cluster: true, configLines: nodeConfig(options) }),
    ),
  );
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  ledgerServers(servers);
  const failure = started.find((result) => result.status === 'rejected');
  let release: () => void;
  try {
    if (failure) throw failure.reason;
    release = await takeTopologySlot();
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  }
  const cluster = new RedisClusterProcess(servers, options, release, undefined);
  try {
    await cluster.create(primaryCount, replicasEach);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** How long an adopted cluster may take to agree before a fresh one is started instead. */
const ADOPT_WAIT_MS = 5_000;

class RedisClusterProcess implements RedisCluster, MigrationContext {
  private readonly ids: string[] = [];
  private readonly down = new Set<string>();
  private view: NodeEntry[] = [];
  private stopped = false;

  constructor(
    private readonly servers: RedisServer[],
    private readonly options: RedisClusterOptions,
    /** Gives back the machine's topology slot (topology-gate.ts). */
    private readonly releaseSlot: () => void,
    /**
     * How it was right after it started, when it may be pooled (cluster-reuse.ts); undefined when
     * it cannot be read (CONFIG or ACL renamed away by `configLines`): such a cluster is stopped.
     */
    private baseline: ClusterBaseline | undefined,
  ) {}

  get password(): string | undefined {
    return this.options.password;
  }

  get nodes(): readonly ClusterNode[] {
    return this.ids.map((id, index) => {
      const entry = this.view.find((candidate) => candidate.id === id);
      const server = this.servers[index]!;
      return {
        id,
        host: server.host,
        port: server.port,
        busPort: server.busPort,
        url: server.url,
        role: entry?.role ?? 'primary',
        primaryId: entry?.primaryId,
        slots: entry?.slots ?? [],
        running: !this.down.has(id),
      };
    });
  }

  get primaries(): readonly ClusterNode[] {
    return this.nodes.filter((node) => node.role === 'primary' && node.slots.length > 0);
  }

  get endpoints(): readonly { host: string; port: number }[] {
    return this.nodes.filter((node) => node.running).map(({ host, port }) => ({ host, port }));
  }

  node(ref: NodeRef): ClusterNode {
    const found = this.nodes.find((node) => node.id === ref.id);
    if (!found) throw new Error(`no node ${ref.id} in this cluster`);
    return found;
  }

  replicasOf(primary: NodeRef): ClusterNode[] {
    return this.nodes.filter((node) => node.role === 'replica' && node.primaryId === primary.id);
  }

  ownerOf(slot: number): ClusterNode {
    const owner = this.nodes.find((node) => node.role === 'primary' && slotInRanges(slot, node.slots));
    if (!owner) throw new Error(`no node serves slot ${slot}`);
    return owner;
  }

  async keySlot(key: string | Uint8Array): Promise<number> {
    const anyNode = this.nodes.find((node) => node.running)!;
    return Number(await this.command(anyNode, ['CLUSTER', 'KEYSLOT', key]));
  }

  async nodeFor(key: string | Uint8Array): Promise<ClusterNode> {
    return this.ownerOf(await this.keySlot(key));
  }

  command(node: NodeRef, args: readonly WireArgument[], options?: AdminOptions): Promise<Reply> {
    const { host, port } = this.node(node);
    return adminCommand({ host, port, password: this.options.password }, args, options);
  }

  server(node: NodeRef): RedisServer {
    const index = this.ids.indexOf(node.id);
    if (index === -1) throw new Error(`no node ${node.id} in this cluster`);
    return this.servers[index]!;
  }

  /** Assign slots and epochs, MEET, wait for the handshakes, REPLICATE, wait for agreement. */
  async create(primaryCount: number, replicasEach: number): Promise<void> {
    for (const server of this.servers) {
      this.ids.push(String(await this.ask(server, ['CLUSTER', 'MYID'])));
    }
    const ranges = splitSlots(primaryCount);
    await Promise.all(
      this.servers.map(async (server, index) => {
        const range = ranges[index];
        if (range) await this.ask(server, ['CLUSTER', 'ADDSLOTSRANGE', range[0], range[1]]);
        // Distinct epochs from the start, as redis-cli sets them: no collision round to wait out.
        await this.ask(server, ['CLUSTER', 'SET-CONFIG-EPOCH', index + 1]);
      }),
    );
    // Every node meets every other itself: the handshakes all finish within a cron tick or two,
    // where meeting one node and waiting for gossip to spread the rest takes a second or more.
    await Promise.all(
      this.servers.map(async (server, index) => {
        for (const other of this.servers.slice(index + 1)) {
          await this.ask(server, ['CLUSTER', 'MEET', other.host, other.port, other.busPort]);
        }
      }),
    );
    const targets = this.servers.map((server) => this.target(server));
    await waitUntil(
      'every node to know every other',
      () => everyoneKnowsEveryone(targets),
      this.waitOptions(),
    );
    await Promise.all(
      this.servers.slice(primaryCount).map((server, index) => {
        const primaryId = this.ids[Math.floor(index / replicasEach)]!;
        return this.ask(server, ['CLUSTER', 'REPLICATE', primaryId]);
      }),
    );
    await this.settle();
    if (clusterPoolEnabled()) this.baseline = await readBaseline(this).catch(() => undefined);
  }

  /** Take over a released cluster; false unless it agrees, laid out as it was when it started. */
  async adopt(ids: readonly string[]): Promise<boolean> {
    this.ids.push(...ids);
    await this.settle(undefined, ADOPT_WAIT_MS);
    return this.baseline !== undefined && hasBaselineLayout(this, this.baseline);
  }

  async settle(extra?: (view: NodeEntry[]) => true | string, timeoutMs?: number): Promise<void> {
    await waitUntil('the cluster to agree', () => this.agreement(extra), {
      timeoutMs: timeoutMs ?? this.waitOptions().timeoutMs,
    });
  }

  async failover(primary: NodeRef): Promise<ClusterNode> {
    const replica = this.replicasOf(primary).find((node) => node.running);
    if (!replica) throw new Error(`primary ${primary.id} has no running replica to fail over to`);
    await this.command(replica, ['CLUSTER', 'FAILOVER']);
    await this.settle((view) => {
      const promoted = view.find((entry) => entry.id === replica.id);
      const demoted = view.find((entry) => entry.id === primary.id);
      if (promoted?.role !== 'primary') return `${replica.id} is not promoted yet`;
      return demoted?.primaryId === replica.id ? true : `${primary.id} does not follow ${replica.id} yet`;
    });
    return this.node(replica);
  }

  async killPrimary(primary: NodeRef): Promise<ClusterNode> {
    const candidates = this.replicasOf(primary).filter((node) => node.running);
    if (candidates.length === 0) throw new Error(`primary ${primary.id} has no running replica to take over`);
    const server = this.server(primary);
    server.kill('SIGKILL');
    await server.waitForExit();
    this.down.add(primary.id);
    let promotedId = '';
    await this.settle((view) => {
      const promoted = candidates.find(
        (node) => view.find((entry) => entry.id === node.id)?.role === 'primary',
      );
      if (!promoted) return `no replica of ${primary.id} promoted yet`;
      promotedId = promoted.id;
      return true;
    });
    return this.node({ id: promotedId });
  }

  async killPrimaryUnreplaced(primary: NodeRef): Promise<ClusterNode[]> {
    for (const replica of this.replicasOf(primary)) {
      await this.command(replica, ['CONFIG', 'SET', 'cluster-replica-no-failover', 'yes']);
    }
    const server = this.server(primary);
    server.kill('SIGKILL');
    await server.waitForExit();
    this.down.add(primary.id);
    const live = this.nodes.filter((node) => node.running);
    await waitUntil(
      `every running node to mark ${primary.id} fail`,
      async () => {
        for (const node of live) {
          const view = parseClusterNodes(String(await this.command(node, ['CLUSTER', 'NODES'])));
          const flags = view.find((entry) => entry.id === primary.id)?.flags ?? [];
          if (!flags.includes('fail')) return `${node.port} flags it ${flags.join(',')}`;
        }
        return true;
      },
      this.waitOptions(),
    );
    return live;
  }

  async commandCalls(nodes: readonly NodeRef[], command: string): Promise<number> {
    const pattern = new RegExp(`^cmdstat_${command.replace('|', '\\|')}:calls=(\\d+)`, 'm');
    let calls = 0;
    for (const node of nodes) {
      calls += Number(pattern.exec(String(await this.command(node, ['INFO', 'commandstats'])))?.[1] ?? 0);
    }
    return calls;
  }

  async restartNode(node: NodeRef): Promise<void> {
    await this.server(node).restart();
    this.down.delete(node.id);
    await this.settle();
  }

  beginMigration(slot: number, target: NodeRef): Promise<SlotMigration> {
    return startSlotMigration(this, slot, this.node(target));
  }

  moveKeys(migration: SlotMigration, limit?: number): Promise<number> {
    return moveSlotKeys(this, migration, limit);
  }

  finishMigration(migration: SlotMigration): Promise<void> {
    return finishSlotMigration(this, migration);
  }

  async migrateSlot(slot: number, target: NodeRef): Promise<void> {
    await this.finishMigration(await this.beginMigration(slot, target));
  }

  logs(): string {
    return this.servers
      .map((server, index) => `--- node ${this.ids[index] ?? '?'} (port ${server.port}):\n${server.log()}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(this.servers.map((server) => server.stop()));
    this.releaseSlot();
  }

  async release(): Promise<void> {
    if (this.stopped) return;
    if (this.baseline === undefined || (await this.whyNotReusable(this.baseline)) !== undefined) {
      await this.stop();
      return;
    }
    this.stopped = true;
    try {
      const handovers = this.servers.map(handOver);
      const entry = { servers: handovers, ids: this.ids, baseline: this.baseline };
      // False when another one with these options already waits: this one is not needed.
      if (!poolCluster(poolKey(this.options), entry)) {
        await Promise.all(handovers.map((handover) => adoptRedisServer(handover).stop()));
      }
    } finally {
      this.releaseSlot();
    }
  }

  private async whyNotReusable(baseline: ClusterBaseline): Promise<string | undefined> {
    const gone = this.servers.find((server) => !isProcessAlive(server.pid));
    if (gone) return `the node on port ${gone.port} is not running`;
    try {
      return await restoreCluster(this, baseline);
    } catch (error) {
      return (error as Error).message;
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private ask(server: RedisServer, args: readonly WireArgument[]): Promise<Reply> {
    return adminCommand(this.target(server), args);
  }

  private target(server: RedisServer): AdminTarget {
    return { host: server.host, port: server.port, password: this.options.password };
  }

  private runningNodes(): RunningNode[] {
    return this.ids.flatMap((id, index) =>
      this.down.has(id) ? [] : [{ id, target: this.target(this.servers[index]!) }],
    );
  }

  /** Agreement (cluster-agreement.ts), then `extra`; the agreed view becomes `nodes`. */
  private async agreement(extra?: (view: NodeEntry[]) => true | string): Promise<true | string> {
    const outcome = await clusterAgreement(this.runningNodes(), this.ids, this.down);
    if (typeof outcome === 'string') return outcome;
    const verdict = extra ? extra(outcome) : true;
    if (verdict === true) this.view = outcome;
    return verdict;
  }

  private waitOptions(): { timeoutMs: number } {
    return { timeoutMs: this.options.settleTimeoutMs ?? 60_000 };
  }
}
