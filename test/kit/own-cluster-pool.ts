// For the tests of the cluster pool itself: a pool of the file's own instead of the test run's,
// so that the clusters they start, release and adopt by hand meet no other file's; whatever they
// started is stopped, and the pool drained, after the file.
import { afterAll, beforeAll } from 'vitest';
import { CLUSTER_POOL_ENV, createClusterPool, drainClusterPool } from './cluster-pool.js';

export interface OwnClusterPool {
  /** The pool's directory. */
  readonly dir: string;
  /** Stopped after the file, if still running then (a cluster, a server). */
  track<T extends { stop(): Promise<void> }>(started: T): T;
  /** Drain the pool now (as the run's teardown would) and start a new one for what follows. */
  drainAndRenew(): void;
}

export function useOwnClusterPool(): OwnClusterPool {
  let runPool: string | undefined;
  let dir = '';
  const running: { stop(): Promise<void> }[] = [];
  beforeAll(() => {
    runPool = process.env[CLUSTER_POOL_ENV];
    dir = createClusterPool();
    process.env[CLUSTER_POOL_ENV] = dir;
  });
  afterAll(async () => {
    await Promise.all(running.map((started) => started.stop()));
    drainClusterPool(dir);
    if (runPool === undefined) delete process.env[CLUSTER_POOL_ENV];
    else process.env[CLUSTER_POOL_ENV] = runPool;
  });
  return {
    get dir() {
      return dir;
    },
    track(started) {
      running.push(started);
      return started;
    },
    drainAndRenew() {
      drainClusterPool(dir);
      dir = createClusterPool();
      process.env[CLUSTER_POOL_ENV] = dir;
    },
  };
}
