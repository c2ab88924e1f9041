// Vitest global setup (vitest.config.ts): the test run's pool of released clusters
// (cluster-pool.ts), named to the workers through the environment and emptied at the end.
import { CLUSTER_POOL_ENV, createClusterPool, drainClusterPool } from './cluster-pool.js';

export default function setup(): () => void {
  const dir = createClusterPool();
  process.env[CLUSTER_POOL_ENV] = dir;
  return () => {
    drainClusterPool(dir);
    delete process.env[CLUSTER_POOL_ENV];
  };
}
