// Moves one hash slot between primaries the way `redis-cli --cluster reshard` does (cluster spec,
// "Live reconfiguration"), split in steps so a test can act in the ASK window between them.
import type { AdminOptions, Reply } from './admin-command.js';
import type { NodeEntry } from './cluster-view.js';
import type { ClusterNode, NodeRef, SlotMigration } from './redis-cluster.js';
import type { WireArgument } from './resp-wire.js';

/** What the migration steps need from the cluster kit. */
export interface MigrationContext {
  readonly nodes: readonly ClusterNode[];
  readonly password: string | undefined;
  node(ref: NodeRef): ClusterNode;
  ownerOf(slot: number): ClusterNode;
  command(node: NodeRef, args: readonly WireArgument[], options?: AdminOptions): Promise<Reply>;
  settle(extra?: (view: NodeEntry[]) => true | string): Promise<void>;
}

/** Keys per GETKEYSINSLOT + MIGRATE round, as redis-cli's default `--cluster-pipeline`. */
const KEYS_PER_BATCH = 10;
const MIGRATE_TIMEOUT_MS = 10_000;

/** SETSLOT IMPORTING on the target first, then MIGRATING on the source (the spec's order). */
export async function startSlotMigration(
  context: MigrationContext,
  slot: number,
  target: ClusterNode,
): Promise<SlotMigration> {
  checkSlot(slot);
  const source = context.ownerOf(slot);
  if (target.role !== 'primary' || !target.running)
    throw new Error(`target ${target.id} is not a running primary`);
  if (source.id === target.id) throw new Error(`slot ${slot} is already on ${target.id}`);
  await context.command(target, ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id]);
  await context.command(source, ['CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id]);
  return { slot, source, target };
}

/** GETKEYSINSLOT + MIGRATE … KEYS in batches, until `limit` keys moved or none are left. */
export async function moveSlotKeys(
  context: MigrationContext,
  migration: SlotMigration,
  limit = Number.POSITIVE_INFINITY,
): Promise<number> {
  const { slot, source, target } = migration;
  const auth: WireArgument[] = context.password === undefined ? [] : ['AUTH', context.password];
  let moved = 0;
  while (moved < limit) {
    const batch = Math.min(KEYS_PER_BATCH, limit - moved);
    // Keys may be binary: keep them as bytes from GETKEYSINSLOT to MIGRATE.
    const keys = (await context.command(source, ['CLUSTER', 'GETKEYSINSLOT', slot, batch], {
      bulkAsBuffer: true,
    })) as Buffer[];
    if (keys.length === 0) break;
    await context.command(
      source,
      ['MIGRATE', target.host, target.port, '', 0, MIGRATE_TIMEOUT_MS, ...auth, 'KEYS', ...keys],
      { timeoutMs: MIGRATE_TIMEOUT_MS + 5_000 },
    );
    moved += keys.length;
  }
  return moved;
}

/**
 * Moves what is left, then SETSLOT NODE on the target, the source and every other primary (the
 * spec's order: the target first, so the slot is never without an owner that accepts it), and
 * waits until every running node reports the target as the owner.
 */
export async function finishSlotMigration(
  context: MigrationContext,
  migration: SlotMigration,
): Promise<void> {
  const { slot, source, target } = migration;
  await moveSlotKeys(context, migration);
  const others = context.nodes.filter(
    (node) => node.role === 'primary' && node.running && node.id !== source.id && node.id !== target.id,
  );
  for (const node of [target, source, ...others]) {
    await context.command(node, ['CLUSTER', 'SETSLOT', slot, 'NODE', target.id]);
  }
  await context.settle((view) => {
    const owner = view.find(
      (entry) => entry.role === 'primary' && entry.slots.some(([a, b]) => slot >= a && slot <= b),
    );
    return owner?.id === target.id ? true : `slot ${slot} is still on ${owner?.id ?? 'no node'}`;
  });
}

function checkSlot(slot: number): void {
  if (!Number.isInteger(slot) || slot < 0 || slot > 16383) throw new Error(`bad slot ${slot}`);
}
