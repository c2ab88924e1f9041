// RespireClient, the one class users meet (API.md "Connecting"): the shared client core with the
// `connect()` that chooses the router for the options' mode. It sits above the core and the
// routers, which never import it (STYLE.md "Layers").
import { ClientCore, type NodeFactory } from './client/client-core.js';
import { type ResolvedOptions, type RespireOptions, resolveOptions } from './client/options.js';
import type { Router } from './client/router.js';
import { StandaloneRouter } from './client/standalone-router.js';
import { ClusterRouter } from './cluster/cluster-router.js';
import { validateSentinelOptions } from './sentinel/options.js';
import { SentinelRouter } from './sentinel/sentinel-router.js';

/**
 * A Redis client: standalone, Cluster (`useCluster`) or Sentinel (`sentinel`), with a circuit
 * breaker per endpoint when `circuitBreaker` is set. Create it with `RespireClient.connect`.
 */
export class RespireClient extends ClientCore {
  /**
   * Connects: standalone, the handshake of the first connection (rejects with its error); Cluster
   * (`useCluster`), the topology from the seeds in turn (rejects naming the seeds tried); Sentinel
   * (`sentinel`), the primary the sentinels name, confirmed by ROLE, and its first connection.
   */
  static async connect(options: RespireOptions): Promise<RespireClient> {
    const resolved = resolveOptions(options);
    const client = new RespireClient(resolved, routerFor(resolved));
    await client.start();
    return client;
  }
}

/**
 * The router of the options' mode (also each member's of a failover group, src/failover). Sentinel
 * options are checked here, before anything is opened.
 * @throws RespireConfigurationError for invalid sentinel options.
 */
export function routerFor(resolved: ResolvedOptions): (nodes: NodeFactory) => Router {
  const sentinel = resolved.mode === 'sentinel' ? validateSentinelOptions(resolved.sentinel) : undefined;
  return (nodes) => {
    if (sentinel !== undefined) return new SentinelRouter(resolved, nodes, sentinel);
    if (resolved.mode === 'cluster') return new ClusterRouter(resolved, nodes);
    const replicas = resolved.replicaEndpoints.map((endpoint) => nodes.create(endpoint));
    return new StandaloneRouter(nodes.create(resolved.endpoint), replicas, resolved.readFrom);
  };
}
