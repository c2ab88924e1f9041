// What the restore of a released cluster (cluster-reuse.ts) must undo beyond keys and layout, so
// that the file adopting it sees what a fresh cluster shows: state Redis keeps where CONFIG GET *
// does not look, files on disk a restart reads, a node left frozen; and the pool's own edges.
// A pool of this file's own, as in cluster-pool.test.ts; one cluster released and adopted in turn.
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCommand } from './admin-command.js';
import { poolKey } from './cluster-node-config.js';
import { poolCluster, takePooledCluster } from './cluster-pool.js';
import { useOwnClusterPool } from './own-cluster-pool.js';
import { isProcessAlive } from './process-alive.js';
import { type RedisCluster, type RedisClusterOptions, startRedisCluster } from './redis-cluster.js';
import { startRedisServer } from './redis-server.js';
import { waitUntil } from './wait-until.js';

// `hz 10` is Redis's default: it only keeps this cluster apart from any other file's.
const OPTIONS: RedisClusterOptions = { configLines: ['hz 10'] };

const pool = useOwnClusterPool();

async function start(options: RedisClusterOptions = OPTIONS): Promise<RedisCluster> {
  const cluster = await startRedisCluster(options);
  pool.track(cluster);
  return cluster;
}

const ids = (cluster: RedisCluster) => cluster.nodes.map((node) => node.id);

/** Release `cluster` and start again: the same cluster must come back, adopted. */
async function handOn(cluster: RedisCluster): Promise<RedisCluster> {
  const before = ids(cluster);
  await cluster.release();
  const adopted = await start();
  expect(ids(adopted)).toEqual(before);
  return adopted;
}

/** A key `node` owns. */
async function keyOn(cluster: RedisCluster, node: { id: string }): Promise<string> {
  let key = 0;
  while ((await cluster.nodeFor(`k${key}`)).id !== node.id) key++;
  return `k${key}`;
}

describe('a released cluster, adopted', () => {
  let cluster: RedisCluster;

  // As long as useRedisCluster waits: another run's cluster may hold the machine's slot that long.
  beforeAll(async () => {
    cluster = await start();
  }, 600_000);

  it('has the hidden config values, DEBUG switches, latency events and ACL log of a fresh one', async () => {
    for (const node of cluster.nodes) {
      // Not in CONFIG GET *, yet CONFIG SET changes it: a later resync would crawl.
      await cluster.command(node, ['CONFIG', 'SET', 'rdb-key-save-delay', '7']);
      await cluster.command(node, ['DEBUG', 'SET-ACTIVE-EXPIRE', '0']);
      await cluster.command(node, ['CONFIG', 'SET', 'latency-monitor-threshold', '1']);
      await cluster.command(node, ['DEBUG', 'SLEEP', '0.01']);
      await expect(adminCommand({ ...node, username: 'nobody', password: 'x' }, ['PING'])).rejects.toThrow(
        /WRONGPASS/,
      );
    }
    cluster = await handOn(cluster);

    for (const node of cluster.nodes) {
      expect(await cluster.command(node, ['CONFIG', 'GET', 'rdb-key-save-delay'])).toEqual([
        'rdb-key-save-delay',
        '0',
      ]);
      expect(await cluster.command(node, ['LATENCY', 'LATEST'])).toEqual([]);
      expect(await cluster.command(node, ['ACL', 'LOG'])).toEqual([]);
    }
    // Active expiry is on again: an expired key goes without being touched.
    const primary = cluster.primaries[0]!;
    await cluster.command(primary, ['SET', await keyOn(cluster, primary), 'v', 'PX', '1']);
    await waitUntil(
      'the expired key to be removed',
      async () => ((await cluster.command(primary, ['DBSIZE'])) === 0 ? true : 'still there'),
      { timeoutMs: 3_000 },
    );
  }, 600_000);

  it('restarts a primary empty, even one that resynced as a replica before', async () => {
    const primary = cluster.primaries[0]!;
    const key = await keyOn(cluster, primary);
    await cluster.command(primary, ['SET', key, 'left by an earlier file']);
    // As a replica, restarted, it loads its primary's keys by a full sync into an RDB file.
    await cluster.failover(primary);
    await cluster.restartNode(primary);
    cluster = await handOn(cluster);

    // A fresh cluster's primary has no RDB file to load: it comes back empty.
    await cluster.restartNode(primary);
    expect(cluster.node(primary).role).toBe('primary');
    expect(await cluster.command(primary, ['GET', key])).toBe(null);
    expect(await cluster.command(primary, ['DBSIZE'])).toBe(0);
  }, 600_000);

  it('whose replica a config change cut off comes back with its link up', async () => {
    const replica = cluster.nodes.find((node) => node.role === 'replica')!;
    // A wrong masterauth fails the replica's next handshake: the link stays down until set back.
    await cluster.command(replica, ['CONFIG', 'SET', 'masterauth', 'wrong']);
    await cluster.command(replica, ['CLIENT', 'KILL', 'TYPE', 'master']);
    await waitUntil(
      'the link to be down',
      async () => {
        const info = String(await cluster.command(replica, ['INFO', 'replication']));
        return info.includes('master_link_status:down') ? true : 'still up';
      },
      { timeoutMs: 5_000 },
    );
    cluster = await handOn(cluster);
    const info = String(await cluster.command(replica, ['INFO', 'replication']));
    expect(info).toContain('master_link_status:up');
  }, 600_000);

  it('with a node left SIGSTOPped is released at once, and adopted', async () => {
    const replica = cluster.nodes.find((node) => node.role === 'replica')!;
    cluster.server(replica).kill('SIGSTOP');
    const before = ids(cluster);
    const startedAt = Date.now();
    await cluster.release();
    // Not after a 5 s deadline for the frozen node's answer, under the slot the suite waits for.
    expect(Date.now() - startedAt).toBeLessThan(4_000);
    cluster = await start();
    expect(ids(cluster)).toEqual(before);
    expect(await cluster.command(replica, ['PING'])).toBe('PONG');
  }, 600_000);
});

describe('the pool', () => {
  it('starts a cluster whose CONFIG command is renamed, and stops it at release', async () => {
    const options = { configLines: ['hz 10', 'rename-command CONFIG ""'] };
    const cluster = await start(options);
    const pids = cluster.nodes.map((node) => cluster.server(node).pid);
    await cluster.release();
    expect(pids.filter(isProcessAlive)).toEqual([]);
    expect(takePooledCluster(poolKey(options))).toBeUndefined();
  }, 600_000);

  it('is drained of a cluster a worker died holding, even of a node it restarted', async () => {
    // What a worker SIGKILLed mid-file leaves: a fresh cluster, never released, one node restarted.
    const cluster = await start({ replicasPerPrimary: 0, configLines: ['hz 10'] });
    await cluster.restartNode(cluster.nodes[0]!);
    const pids = cluster.nodes.map((node) => cluster.server(node).pid);
    const dirs = cluster.nodes.map((node) => cluster.server(node).dir);

    pool.drainAndRenew();
    await waitUntil(
      'the nodes to be gone',
      async () => (pids.every((pid) => !isProcessAlive(pid)) ? true : 'some still run'),
      { timeoutMs: 5_000 },
    );
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
  }, 600_000);

  it('leaves alone a redis-server that took the pid of one it handed over', async () => {
    const other = await startRedisServer();
    pool.track(other);
    // The ledger names a server that has since exited, whose pid another redis-server now has.
    const gone = mkdtempSync(path.join(os.tmpdir(), 'respire-redis-'));
    const handover = { pid: other.pid, port: 1, busPort: 0, dir: gone, options: {} };
    poolCluster('pid reused', { servers: [handover], ids: [], baseline: {} });
    expect(takePooledCluster('pid reused')).toBeDefined();

    pool.drainAndRenew();
    expect(isProcessAlive(other.pid)).toBe(true);
    expect(await adminCommand(other, ['PING'])).toBe('PONG');
  });
});
