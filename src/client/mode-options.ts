// The options that choose and shape a client's mode (API.md "RespireOptions", "Cluster"):
// `useCluster` with its `cluster` settings, and `readFrom`. Validated here, used by the routers.
import type tls from 'node:tls';
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';
import type { RespireEndpointInput } from './endpoint.js';

/** Rewrites a node address the cluster announces (NAT, Docker, a test proxy); never the seeds. */
export type AddressMap = (endpoint: RespireEndpoint) => RespireEndpoint;

/** Where read-only commands go in Cluster (and Sentinel) mode. */
export type ReadFrom = 'primary' | 'replica' | 'replicaPreferred';

/** `cluster`: the Cluster settings (API.md "Cluster"). */
export interface RespireClusterOptions {
  /** Periodic topology refresh, ms, with jitter; 0 turns it off. Default 30000. */
  refreshInterval?: number;
  /** MOVED, ASK, TRYAGAIN and CLUSTERDOWN hops per command before the last error is the answer. Default 16. */
  maxRedirections?: number;
  /** Rewrites every node address the client learns (topology replies, MOVED/ASK targets). */
  addressMap?: AddressMap;
}

/** `sentinel` (API.md "Sentinel"): validated by src/sentinel/options.ts. */
export interface RespireSentinelOptions {
  /** The name the sentinels monitor the primary under (`sentinel monitor <name> …`). */
  serviceName: string;
  /** Where the sentinels listen: `'host:port'` strings or `{ host, port }` (port default 26379). */
  endpoints: RespireEndpointInput[];
  /** Sentinel ACL user; needs `password`. */
  username?: string;
  /** Sentinel `requirepass` (or the ACL user's password). */
  password?: string;
  /** TLS to the sentinels; the data nodes' `tls` is separate. */
  tls?: boolean | tls.ConnectionOptions;
}

export interface ResolvedClusterOptions {
  readonly refreshInterval: number;
  readonly maxRedirections: number;
  readonly addressMap: AddressMap | undefined;
}

export interface ModeOptionsInput {
  useCluster?: boolean | undefined;
  sentinel?: RespireSentinelOptions | undefined;
  cluster?: RespireClusterOptions | undefined;
  readFrom?: ReadFrom | undefined;
  database?: number | undefined;
  replicaEndpoints?: unknown;
}

export interface ResolvedModeOptions {
  readonly mode: 'standalone' | 'cluster' | 'sentinel';
  /** The `sentinel` option as given; the Sentinel router validates it (src/sentinel/options.ts). */
  readonly sentinel: unknown;
  readonly cluster: ResolvedClusterOptions;
  readonly readFrom: ReadFrom;
}

const CLUSTER_OPTION_NAMES = Object.keys({
  refreshInterval: true,
  maxRedirections: true,
  addressMap: true,
} satisfies Record<keyof RespireClusterOptions, true>);

const READ_FROM: readonly ReadFrom[] = ['primary', 'replica', 'replicaPreferred'];

/** @throws RespireConfigurationError naming the option at fault. */
export function resolveModeOptions(options: ModeOptionsInput): ResolvedModeOptions {
  const { useCluster, cluster, readFrom } = options;
  if (useCluster !== undefined && typeof useCluster !== 'boolean') {
    throw new RespireConfigurationError('useCluster', useCluster, 'true or false');
  }
  if (useCluster === true && options.sentinel !== undefined) {
    throw new RespireConfigurationError(
      'sentinel',
      options.sentinel,
      'not set with useCluster: one mode at a time',
    );
  }
  const mode = useCluster === true ? 'cluster' : options.sentinel !== undefined ? 'sentinel' : 'standalone';
  if (readFrom !== undefined && !READ_FROM.includes(readFrom)) {
    throw new RespireConfigurationError('readFrom', readFrom, "'primary', 'replica' or 'replicaPreferred'");
  }
  if (mode !== 'standalone' && options.replicaEndpoints !== undefined) {
    throw new RespireConfigurationError(
      'replicaEndpoints',
      options.replicaEndpoints,
      'not set with useCluster or sentinel: those modes find their replicas',
    );
  }
  if (
    mode === 'standalone' &&
    options.replicaEndpoints === undefined &&
    readFrom !== undefined &&
    readFrom !== 'primary'
  ) {
    throw new RespireConfigurationError(
      'readFrom',
      readFrom,
      "'primary' without useCluster, sentinel or replicaEndpoints (replicas are read in those modes)",
    );
  }
  if (mode !== 'cluster' && cluster !== undefined) {
    throw new RespireConfigurationError('cluster', cluster, 'not set without useCluster: true');
  }
  if (mode === 'cluster' && options.database !== undefined) {
    throw new RespireConfigurationError(
      'database',
      options.database,
      'not set with useCluster: Redis Cluster has database 0 only',
    );
  }
  return {
    mode,
    cluster: resolveCluster(cluster),
    readFrom: readFrom ?? 'primary',
    sentinel: options.sentinel,
  };
}

function resolveCluster(cluster: RespireClusterOptions | undefined): ResolvedClusterOptions {
  if (cluster === undefined) return { refreshInterval: 30_000, maxRedirections: 16, addressMap: undefined };
  if (cluster === null || typeof cluster !== 'object' || Array.isArray(cluster)) {
    throw new RespireConfigurationError(
      'cluster',
      cluster,
      '{ refreshInterval, maxRedirections, addressMap }',
    );
  }
  rejectUnknownOptions(cluster, CLUSTER_OPTION_NAMES, 'cluster.');
  const { refreshInterval = 30_000, maxRedirections = 16, addressMap } = cluster;
  if (!Number.isInteger(refreshInterval) || refreshInterval < 0 || refreshInterval > 2 ** 31 - 1) {
    throw new RespireConfigurationError(
      'cluster.refreshInterval',
      refreshInterval,
      'an integer from 0 (off) through 2147483647',
    );
  }
  if (!Number.isInteger(maxRedirections) || maxRedirections < 0 || maxRedirections > 1000) {
    throw new RespireConfigurationError(
      'cluster.maxRedirections',
      maxRedirections,
      'an integer from 0 through 1000',
    );
  }
  if (addressMap !== undefined && typeof addressMap !== 'function') {
    throw new RespireConfigurationError(
      'cluster.addressMap',
      addressMap,
      'a function ({ host, port }) => { host, port }',
    );
  }
  return { refreshInterval, maxRedirections, addressMap };
}
