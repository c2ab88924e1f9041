// Clusters handed on from one test file to the next. Starting a Redis Cluster takes the machine's
// topology slot for about two seconds (topology-gate.ts), and the files that hold that slot in turn
// are the test run's critical path; most of them leave the cluster as they found it. So a file
// whose cluster can be brought back to how it started (cluster-reuse.ts) leaves it running here,
// and the next file asking for the same options adopts it instead of starting one.
//
// The pool is a directory named by RESPIRE_TEST_CLUSTER_POOL, which only the test run's global
// setup sets (cluster-pool-setup.ts): without it nothing is pooled (`npm run bench`, a file run by
// hand without that setup). One JSON file per waiting cluster, named by a hash of its options;
// taking one is a rename, so two workers never adopt the same cluster. Every cluster node started
// or handed over is also listed in a ledger, which the global teardown kills: a waiting cluster
// belongs to no worker, and a worker that died mid-file may not have stopped what it held.
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from './process-alive.js';
import { pidInDir, type RedisServerHandover } from './redis-server.js';

export const CLUSTER_POOL_ENV = 'RESPIRE_TEST_CLUSTER_POOL';
const LEDGER = 'handed-over.jsonl';
const DIR_PREFIX = 'respire-cluster-pool-';

/** A cluster waiting in the pool: its processes, node ids in start order, and how it started. */
export interface PooledCluster<Baseline = unknown> {
  readonly servers: readonly RedisServerHandover[];
  readonly ids: readonly string[];
  readonly baseline: Baseline;
}

/** True when this process may pool clusters (the test run's global setup named a pool). */
export function clusterPoolEnabled(): boolean {
  return poolDir() !== undefined;
}

/** The waiting cluster started with options `key`, now ours; undefined when none waits. */
export function takePooledCluster<Baseline>(key: string): PooledCluster<Baseline> | undefined {
  const dir = poolDir();
  if (dir === undefined) return undefined;
  const entry = entryFile(dir, key);
  const taken = `${entry}.taken-by-${process.pid}`;
  try {
    renameSync(entry, taken);
  } catch {
    return undefined; // none waits, or another worker took it first
  }
  try {
    return JSON.parse(readFileSync(taken, 'utf8')) as PooledCluster<Baseline>;
  } finally {
    rmSync(taken, { force: true });
  }
}

/**
 * Leave a cluster for the next file asking for options `key`. False when another cluster with
 * those options already waits (the caller then stops its own).
 */
export function poolCluster<Baseline>(key: string, cluster: PooledCluster<Baseline>): boolean {
  const dir = poolDir();
  if (dir === undefined) return false;
  // In the ledger first: from here the teardown kills these processes whatever happens.
  ledgerServers(cluster.servers);
  const draft = `${entryFile(dir, key)}.draft-${process.pid}`;
  writeFileSync(draft, JSON.stringify(cluster));
  try {
    linkSync(draft, entryFile(dir, key)); // fails if one already waits: never replace it unseen
    return true;
  } catch {
    return false;
  } finally {
    rmSync(draft, { force: true });
  }
}

/**
 * List servers for the teardown to kill if still running: those handed over, and every node a
 * cluster starts with, since a worker killed mid-file (SIGKILL, no exit hook) stops nothing.
 */
export function ledgerServers(servers: readonly { readonly pid: number; readonly dir: string }[]): void {
  const dir = poolDir();
  if (dir === undefined) return;
  appendFileSync(
    path.join(dir, LEDGER),
    servers.map(({ pid, dir: serverDir }) => `${JSON.stringify({ pid, dir: serverDir })}\n`).join(''),
  );
}

/** For the global setup: a fresh pool directory, after clearing those of runs that died. */
export function createClusterPool(): string {
  for (const name of readdirSync(os.tmpdir())) {
    const owner = Number(name.slice(DIR_PREFIX.length).split('-')[0]);
    if (name.startsWith(DIR_PREFIX) && !isProcessAlive(owner)) drainClusterPool(path.join(os.tmpdir(), name));
  }
  return mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
}

/** For the global teardown: kill every listed process still running in its dir, remove all. */
export function drainClusterPool(dir: string): void {
  let ledger = '';
  try {
    ledger = readFileSync(path.join(dir, LEDGER), 'utf8');
  } catch {
    // Nothing was ever handed over.
  }
  for (const line of ledger.split('\n').filter(Boolean)) {
    const { pid, dir: serverDir } = JSON.parse(line) as { pid: number; dir: string };
    // The process listed, or the one a restart put in its place (its pid file is in its dir).
    for (const candidate of new Set([pid, pidInDir(serverDir)])) {
      // The pid may have been reused since, by another run's redis-server even (pid_max is 32768
      // here): only the process still working in the dir listed is ours to kill.
      if (!(candidate > 0 && isProcessAlive(candidate) && runsIn(candidate, serverDir))) continue;
      try {
        process.kill(candidate, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    rmSync(serverDir, { recursive: true, force: true });
  }
  rmSync(dir, { recursive: true, force: true });
}

function poolDir(): string | undefined {
  return process.env[CLUSTER_POOL_ENV] || undefined;
}

function entryFile(dir: string, key: string): string {
  return path.join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 16)}.json`);
}

/** True when `pid`'s working directory is `dir` (the kit spawns each server in its own dir). */
function runsIn(pid: number, dir: string): boolean {
  try {
    return realpathSync(`/proc/${pid}/cwd`) === realpathSync(dir);
  } catch (error) {
    // No /proc: trust the ledger. A dir already gone: the server's stop removed it, so it is not ours.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync('/proc/self');
  }
}
