// Released clusters handed on to the next file (cluster-pool.ts, cluster-reuse.ts): adopted back
// exactly as they started whatever the file did to them, never when they cannot be, one waiting
// per set of options, and none left running by the teardown. A pool of this file's own, so that
// the test run's pool is untouched; the clusters are started and released here by hand.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminCommand } from './admin-command.js';
import { poolKey } from './cluster-node-config.js';
import { takePooledCluster } from './cluster-pool.js';
import { useOwnClusterPool } from './own-cluster-pool.js';
import { isProcessAlive } from './process-alive.js';
import { type RedisCluster, type RedisClusterOptions, startRedisCluster } from './redis-cluster.js';
import { waitUntil } from './wait-until.js';

// `hz 10` is Redis's default: it only keeps these clusters apart from any other file's.
const WITH_REPLICAS: RedisClusterOptions = { configLines: ['hz 10'] };
const PRIMARIES_ONLY: RedisClusterOptions = { replicasPerPrimary: 0, configLines: ['hz 10'] };

const pool = useOwnClusterPool();

async function start(options: RedisClusterOptions): Promise<RedisCluster> {
  const cluster = await startRedisCluster(options);
  pool.track(cluster);
  return cluster;
}

const pids = (cluster: RedisCluster) => cluster.nodes.map((node) => cluster.server(node).pid);
const ids = (cluster: RedisCluster) => cluster.nodes.map((node) => node.id);

describe('a released cluster', () => {
  let first: RedisCluster;

  it('is adopted by the next start with its options, back as it started', async () => {
    first = await start(WITH_REPLICAS);
    const startedAs = { ids: ids(first), pids: pids(first), layout: JSON.stringify(first.nodes) };
    const [primary, other] = first.primaries;
    const threshold = await first.command(primary!, ['CONFIG', 'GET', 'busy-reply-threshold']);
    // What a file may leave behind: keys, config changes, a moved slot, a promoted replica, a
    // script, a function, a paused node, a half-done migration and an unassigned slot.
    await first.command(await first.nodeFor('k'), ['SET', 'k', 'v']);
    await first.command(primary!, ['CONFIG', 'SET', 'busy-reply-threshold', '50']);
    const slot = primary!.slots[0]![0];
    await first.migrateSlot(slot, other!);
    await first.failover(other!);
    const promoted = first.primaries.find((node) => !startedAs.ids.slice(0, 3).includes(node.id))!;
    await first.command(promoted, ['SCRIPT', 'LOAD', 'return 1']);
    await first.command(promoted, [
      'FUNCTION',
      'LOAD',
      "#!lua name=pooltest\nredis.register_function('f', function() return 1 end)",
    ]);
    await first.command(primary!, ['CLIENT', 'PAUSE', '60000', 'WRITE']);
    // A migration begun and left, and a slot no node serves.
    const third = first.primaries.find((node) => node.id === startedAs.ids[2])!;
    await first.beginMigration(third.slots[0]![0], primary!);
    const dropped = third.slots[0]![1];
    for (const node of first.nodes) {
      await first.command(node, ['CONFIG', 'SET', 'cluster-require-full-coverage', 'no']);
      await first.command(node, ['CLUSTER', 'DELSLOTS', dropped]);
    }
    await first.release();

    const second = await start(WITH_REPLICAS);
    expect(ids(second)).toEqual(startedAs.ids);
    expect(pids(second)).toEqual(startedAs.pids);
    expect(JSON.stringify(second.nodes)).toBe(startedAs.layout);
    for (const node of second.nodes) {
      expect(await second.command(node, ['DBSIZE'])).toBe(0);
      expect(
        await second.command(node, ['SCRIPT', 'EXISTS', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db']),
      ).toEqual([0]);
      expect(await second.command(node, ['FUNCTION', 'LIST'])).toEqual([]);
    }
    expect(await second.command(primary!, ['CONFIG', 'GET', 'busy-reply-threshold'])).toEqual(threshold);
    expect(second.ownerOf(slot).id).toBe(primary!.id);
    // Writable again: the pause was lifted.
    let key = 0;
    while ((await second.nodeFor(String(key))).id !== primary!.id) key++;
    expect(await second.command(primary!, ['SET', String(key), 'v'], { timeoutMs: 1_000 })).toBe('OK');
    first = second;
  }, 120_000);

  it('that failed over while waiting is stopped, and a fresh one started instead', async () => {
    const waited = { ids: ids(first), pids: pids(first) };
    const replica = first.nodes.find((node) => node.role === 'replica')!;
    await first.release();
    await adminCommand(replica, ['CLUSTER', 'FAILOVER']);
    await waitUntil(
      'the replica to be promoted',
      async () => (String(await adminCommand(replica, ['ROLE'])).startsWith('master') ? true : 'not yet'),
      { timeoutMs: 20_000 },
    );

    first = await start(WITH_REPLICAS);
    expect(ids(first).filter((id) => waited.ids.includes(id))).toEqual([]);
    await waitUntil(
      'the old processes to be gone',
      async () => (waited.pids.every((pid) => !isProcessAlive(pid)) ? true : 'some still run'),
      { timeoutMs: 10_000 },
    );
  }, 120_000);

  it('with a node that died is stopped, not pooled', async () => {
    const before = pids(first);
    const replica = first.nodes.find((node) => node.role === 'replica')!;
    first.server(replica).kill('SIGKILL');
    await first.server(replica).waitForExit();
    await first.release();
    expect(before.filter(isProcessAlive)).toEqual([]);
    expect(takePooledCluster(poolKey(WITH_REPLICAS))).toBeUndefined();
  }, 60_000);

  it('waits one per set of options, and the teardown stops the one waiting', async () => {
    const kept = await start(PRIMARIES_ONLY);
    const extra = await start(PRIMARIES_ONLY);
    await kept.release();
    await extra.release();
    expect(pids(extra).filter(isProcessAlive)).toEqual([]);
    expect(pids(kept).every(isProcessAlive)).toBe(true);
    const dirs = kept.nodes.map((node) => kept.server(node).dir);

    pool.drainAndRenew();
    await waitUntil(
      'the waiting cluster to be gone',
      async () => (pids(kept).every((pid) => !isProcessAlive(pid)) ? true : 'some still run'),
      { timeoutMs: 5_000 },
    );
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
  }, 60_000);
});
