// The config every node of a test cluster starts with, and the key under which a released cluster
// waits in the pool (cluster-pool.ts) for a file asking for the same.
import type { RedisClusterOptions } from './redis-cluster.js';

export function nodeConfig(options: RedisClusterOptions): string[] {
  const lines = [
    `cluster-node-timeout ${options.nodeTimeoutMs ?? 2_000}`,
    // Promote a replica however long its link was down: a test's SIGKILL must always fail over.
    'cluster-replica-validity-factor 0',
    // Replicas stay where the test put them.
    'cluster-allow-replica-migration no',
    // Replicas sync at once instead of waiting 5 s for more replicas to share a diskless transfer.
    'repl-diskless-sync-delay 0',
    // Offsets advance every second, so CLUSTER SHARDS soon reports a fresh replica `online`.
    'repl-ping-replica-period 1',
  ];
  if (options.appendOnly) lines.push('appendonly yes', `appendfsync ${options.appendFsync ?? 'everysec'}`);
  if (options.password !== undefined) {
    lines.push(`requirepass "${options.password}"`, `masterauth "${options.password}"`);
  }
  return [...lines, ...(options.configLines ?? [])];
}

/** The options that make two clusters interchangeable (all but the kit's own deadline). */
export function poolKey(options: RedisClusterOptions): string {
  return JSON.stringify({
    primaries: options.primaries ?? 3,
    replicasPerPrimary: options.replicasPerPrimary ?? 1,
    config: nodeConfig(options),
  });
}
