// Shared by the Cluster regression tests that need one node's circuit open, against a real cluster
// behind the fault proxy (cluster-support.ts useProxiedClients).
import { expect } from 'vitest';
import { type RespireClient, RespireTimeoutError } from '../../src/index.js';
import { outcome, type ProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';

/** Trips after 3 failures (half of the node's outcomes); stays open for the test. */
export const TRIP_AFTER_THREE = { minimumFailureCount: 3, failureRateThreshold: 0.5, openDuration: 60_000 };

/**
 * Black-holes `node`'s proxy while three reads of `key` (a key on it, its connection made) time out
 * (the client's `commandTimeout` must be short), then lets traffic pass: the node's circuit is open.
 */
export async function openCircuitOf(
  kit: ProxiedClients,
  redis: RespireClient,
  node: ClusterNode,
  key: string,
): Promise<void> {
  const proxy = kit.proxied.proxyOf(node);
  await proxy.setMode('blackhole');
  const failures = await Promise.all([0, 1, 2].map(() => outcome(redis.get(key))));
  for (const failure of failures) expect(failure).toBeInstanceOf(RespireTimeoutError);
  await proxy.setMode('pass');
  expect(redis.circuitOf(kit.proxied.dialled(node))?.state).toBe('open');
}
