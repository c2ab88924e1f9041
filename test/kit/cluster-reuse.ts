// Bringing a Redis Cluster a test file has used back to how it started, so that the next file can
// adopt it (cluster-pool.ts) and see what a fresh cluster would show: the same nodes in the same
// roles owning the same slots, the same config and ACLs, no keys, scripts, functions, clients or
// statistics. What cannot be undone cheaply (a killed node, many moved slots, a config value
// Redis refuses to set back) makes the cluster be stopped instead, as before pooling.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { type AdminOptions, fieldsOf, type Reply } from './admin-command.js';
import { type NodeEntry, parseClusterNodes, type SlotRange, slotInRanges } from './cluster-view.js';
import type { ClusterNode, NodeRef } from './redis-cluster.js';
import type { WireArgument } from './resp-wire.js';
import { waitUntil } from './wait-until.js';

/** How a cluster was right after it started, to compare it with when a file is done with it. */
export interface ClusterBaseline {
  /** Every node in start order. */
  readonly layout: readonly LayoutEntry[];
  /** `CONFIG GET *` and the hidden values (HIDDEN_CONFIG) of every node, by node id. */
  readonly config: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** `ACL LIST` of every node, by node id. */
  readonly acl: Readonly<Record<string, readonly string[]>>;
}

interface LayoutEntry {
  readonly id: string;
  readonly role: 'primary' | 'replica';
  readonly primaryId: string | undefined;
  readonly slots: readonly SlotRange[];
}

/** What the restore needs from the cluster kit. */
export interface ReuseContext {
  readonly nodes: readonly ClusterNode[];
  node(ref: NodeRef): ClusterNode;
  command(node: NodeRef, args: readonly WireArgument[], options?: AdminOptions): Promise<Reply>;
  settle(extra?: (view: NodeEntry[]) => true | string, timeoutMs?: number): Promise<void>;
  migrateSlot(slot: number, target: NodeRef): Promise<void>;
  /** The process behind a node: its dir, and signals. */
  server(node: NodeRef): { readonly dir: string; kill(signal?: NodeJS.Signals): void };
}

/**
 * Values Redis 7.0 leaves out of `CONFIG GET *` (HIDDEN_CONFIG) that CONFIG SET still changes: a
 * file slowing replication down with `rdb-key-save-delay` would slow every later file's resync.
 */
const HIDDEN_CONFIG = [
  'key-load-delay',
  'loading-process-events-interval-bytes',
  'lua-enable-deprecated-api',
  'rdb-key-save-delay',
  'use-exit-on-panic',
  'watchdog-period',
];

/**
 * Immutable values that follow the node's role (`replicaof` names the primary it follows): the
 * config is set back before the roles are, and the layout check covers them.
 */
const ROLE_CONFIG = new Set(['replicaof', 'slaveof']);

/**
 * What DEBUG changes and nothing reads back, set to Redis's defaults: a node left with active
 * expiry off (`SET-ACTIVE-EXPIRE 0`) would keep every later file's expired keys until touched.
 */
const DEBUG_DEFAULTS = [
  ['SET-ACTIVE-EXPIRE', '1'],
  ['SET-SKIP-CHECKSUM-VALIDATION', '0'],
  ['SET-DISABLE-DENY-SCRIPTS', '0'],
  ['QUICKLIST-PACKED-THRESHOLD', String(2 ** 30)],
];

/** Each wait of a restore: a cluster that needs longer is not worth keeping. */
const RESTORE_WAIT_MS = 5_000;
/** Moving an empty slot back takes a settle each; more than this and a fresh cluster is quicker. */
const MAX_SLOTS_TO_MOVE_BACK = 16;

export async function readBaseline(cluster: ReuseContext): Promise<ClusterBaseline> {
  const config: Record<string, Record<string, string>> = {};
  const acl: Record<string, string[]> = {};
  for (const node of cluster.nodes) {
    config[node.id] = await configOf(cluster, node);
    acl[node.id] = (await cluster.command(node, ['ACL', 'LIST'])) as string[];
  }
  return { layout: layoutOf(cluster.nodes), config, acl };
}

/** True when the nodes are laid out as `baseline` says (after an adoption, say). */
export function hasBaselineLayout(cluster: ReuseContext, baseline: ClusterBaseline): boolean {
  return layoutText(layoutOf(cluster.nodes)) === layoutText(baseline.layout);
}

/**
 * Put the cluster back as `baseline` describes; resolves with why that cannot be done, or
 * undefined once it is done.
 */
export async function restoreCluster(
  cluster: ReuseContext,
  baseline: ClusterBaseline,
): Promise<string | undefined> {
  if (cluster.nodes.some((node) => !node.running)) return 'a node was killed';
  // A node left SIGSTOPped would answer nothing: every step below would wait out its deadline.
  for (const node of cluster.nodes) cluster.server(node).kill('SIGCONT');
  // A pause left behind would hold the FLUSHALL below.
  for (const node of cluster.nodes) await cluster.command(node, ['CLIENT', 'UNPAUSE']);
  // Config first: a value a file changed may keep the cluster from agreeing (a wrong masterauth
  // keeps a replica's link down), and changed ACLs end the restore before any wait.
  const changed = await restoreConfig(cluster, baseline);
  if (changed !== undefined) return changed;
  await mendSlots(cluster, baseline);
  await cluster.settle(undefined, RESTORE_WAIT_MS);
  const why = (await restoreRoles(cluster, baseline)) ?? (await restoreSlots(cluster, baseline));
  if (why !== undefined) return why;
  if (!hasBaselineLayout(cluster, baseline)) return 'its nodes are laid out differently';
  return await clearState(cluster, baseline);
}

/**
 * What would keep the cluster from agreeing at all: migrations a file began and left are called
 * off, and a slot it left unassigned (DELSLOTS) goes back to its owner, whose claim gossip spreads.
 */
async function mendSlots(cluster: ReuseContext, baseline: ClusterBaseline): Promise<void> {
  for (const node of cluster.nodes) {
    const self = ownView(String(await cluster.command(node, ['CLUSTER', 'NODES'])));
    for (const slot of [...(self?.migrating ?? []), ...(self?.importing ?? [])]) {
      await cluster.command(node, ['CLUSTER', 'SETSLOT', slot, 'STABLE']);
    }
  }
  for (const wanted of baseline.layout) {
    if (wanted.role !== 'primary') continue;
    const view = parseClusterNodes(String(await cluster.command(wanted, ['CLUSTER', 'NODES'])));
    const unassigned: number[] = [];
    for (const [first, last] of wanted.slots) {
      for (let slot = first; slot <= last; slot++) {
        if (!view.some((entry) => entry.role === 'primary' && slotInRanges(slot, entry.slots)))
          unassigned.push(slot);
      }
    }
    if (unassigned.length > 0) await cluster.command(wanted, ['CLUSTER', 'ADDSLOTS', ...unassigned]);
  }
}

function ownView(clusterNodes: string): NodeEntry | undefined {
  return parseClusterNodes(clusterNodes).find((entry) => entry.flags.includes('myself'));
}

/** A replica a file promoted (CLUSTER FAILOVER) hands its primary role back. */
async function restoreRoles(cluster: ReuseContext, baseline: ClusterBaseline): Promise<string | undefined> {
  for (const wanted of baseline.layout) {
    if (wanted.role !== 'primary' || cluster.node(wanted).role === 'primary') continue;
    await cluster.command(wanted, ['CLUSTER', 'FAILOVER']);
    await cluster.settle(
      (view) =>
        view.find((entry) => entry.id === wanted.id)?.role === 'primary' ? true : `${wanted.id} not back yet`,
      RESTORE_WAIT_MS,
    );
  }
  return undefined;
}

/** Keys go first (a slot with keys cannot change owner without MIGRATE), then moved slots go back. */
async function restoreSlots(cluster: ReuseContext, baseline: ClusterBaseline): Promise<string | undefined> {
  for (const node of cluster.nodes.filter((candidate) => candidate.role === 'primary')) {
    await cluster.command(node, ['FLUSHALL', 'SYNC']);
  }
  const moves: [number, string][] = [];
  for (const wanted of baseline.layout) {
    const now = cluster.node(wanted).slots;
    for (const [first, last] of wanted.slots) {
      for (let slot = first; slot <= last; slot++)
        if (!slotInRanges(slot, now)) moves.push([slot, wanted.id]);
    }
  }
  if (moves.length > MAX_SLOTS_TO_MOVE_BACK) return `${moves.length} slots changed owner`;
  for (const [slot, owner] of moves) await cluster.migrateSlot(slot, { id: owner });
  return undefined;
}

/** Values a file changed with CONFIG SET are set back; the ACLs must be as they were. */
async function restoreConfig(cluster: ReuseContext, baseline: ClusterBaseline): Promise<string | undefined> {
  for (const node of cluster.nodes) {
    const wanted = baseline.config[node.id] ?? {};
    const now = await configOf(cluster, node);
    for (const [name, value] of Object.entries(wanted)) {
      if (now[name] === value || ROLE_CONFIG.has(name)) continue;
      try {
        await cluster.command(node, ['CONFIG', 'SET', name, value]);
      } catch (error) {
        return `CONFIG SET ${name} back: ${(error as Error).message}`;
      }
    }
    const acl = (await cluster.command(node, ['ACL', 'LIST'])) as string[];
    if (acl.join('\n') !== (baseline.acl[node.id] ?? []).join('\n')) return `the ACLs of ${node.id} changed`;
  }
  return undefined;
}

/**
 * No scripts, functions, statistics, slow log, latency events, ACL log or client connections left;
 * DEBUG switches at their defaults; replicas emptied; and no RDB file on disk, which a node loads
 * when restarted: a primary that once resynced as a replica would otherwise come back from a later
 * file's `restartNode` with this file's keys, where a fresh one comes back empty.
 */
async function clearState(cluster: ReuseContext, baseline: ClusterBaseline): Promise<undefined> {
  for (const node of cluster.nodes) {
    if (node.role === 'primary') await cluster.command(node, ['FUNCTION', 'FLUSH', 'SYNC']);
    if (baseline.config[node.id]?.['enable-debug-command'] !== 'no') {
      for (const args of DEBUG_DEFAULTS) await cluster.command(node, ['DEBUG', ...args]);
    }
    for (const args of [
      ['SCRIPT', 'FLUSH', 'SYNC'],
      ['CONFIG', 'RESETSTAT'],
      ['SLOWLOG', 'RESET'],
      ['LATENCY', 'RESET'],
      ['ACL', 'LOG', 'RESET'],
      ['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'],
      ['CLIENT', 'KILL', 'TYPE', 'pubsub', 'SKIPME', 'yes'],
    ]) {
      await cluster.command(node, args);
    }
  }
  await waitUntil(
    'the replicas to apply the FLUSHALL',
    async () => {
      for (const node of cluster.nodes.filter((candidate) => candidate.role === 'replica')) {
        const keys = Number(await cluster.command(node, ['DBSIZE']));
        if (keys !== 0) return `${node.id} still has ${keys} keys`;
      }
      return true;
    },
    { timeoutMs: RESTORE_WAIT_MS },
  );
  for (const node of cluster.nodes) {
    const file = baseline.config[node.id]?.dbfilename ?? 'dump.rdb';
    rmSync(path.join(cluster.server(node).dir, file), { force: true });
  }
  return undefined;
}

function layoutOf(nodes: readonly ClusterNode[]): LayoutEntry[] {
  return nodes.map(({ id, role, primaryId, slots }) => ({ id, role, primaryId, slots }));
}

function layoutText(layout: readonly LayoutEntry[]): string {
  return JSON.stringify(layout.map(({ id, role, primaryId, slots }) => [id, role, primaryId ?? null, slots]));
}

async function configOf(cluster: ReuseContext, node: NodeRef): Promise<Record<string, string>> {
  return pairs(await cluster.command(node, ['CONFIG', 'GET', '*', ...HIDDEN_CONFIG]));
}

/** A `CONFIG GET` reply as a record of text values. */
function pairs(reply: Reply): Record<string, string> {
  return Object.fromEntries(Object.entries(fieldsOf(reply)).map(([name, value]) => [name, String(value)]));
}
