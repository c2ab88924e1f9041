// RespireOptions (API.md "RespireOptions"): the public shape, defaults, and validation. Every
// invalid option becomes a RespireConfigurationError naming the option and its allowed range;
// unknown names and options of features not built yet are refused first (option-names.ts).
import type tls from 'node:tls';
import {
  type RespireCircuitBreakerOptions,
  SharedCircuitRegistry,
  validateCircuitBreakerOptions,
} from '../breaker/index.js';
import type { ResolvedCircuitBreakerOptions } from '../breaker/options.js';
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';
import type { MaintenanceMode } from '../transport/maintenance/maintenance.js';
import {
  DEFAULT_RECONNECT,
  type ExponentialReconnect,
  exponentialReconnect,
  type ReconnectFunction,
  type ReconnectOption,
} from '../transport/reconnect-policy.js';
import { type SocketFactory, socketFactoryOf } from '../transport/socket-factory.js';
import { type Clock, systemClock } from '../util/clock.js';
import { type RandomSource, systemRandom } from '../util/random.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';
import {
  type ResolvedCacheOptions,
  type RespireClientSideCacheOptions,
  resolveCacheOptions,
} from './cache/cache-options.js';
import { resolveUrls } from './connection-url.js';
import { parseEndpoint, type RespireEndpointInput } from './endpoint.js';
import { type RespireMeter, type RespireMetricGroup, resolveMetricOptions } from './metrics.js';
import {
  type ReadFrom,
  type ResolvedModeOptions,
  type RespireClusterOptions,
  type RespireSentinelOptions,
  resolveModeOptions,
} from './mode-options.js';
import { refuseUnknownOptions } from './option-names.js';
import { MAX_TIMEOUT_MS } from './prepare-command.js';

/** `retry`: how often a command that may safely be retried is tried. */
export interface RespireRetryOptions {
  /** Attempts in all, the first included. 1 = no retry (the default). */
  maxAttempts: number;
}

/** The options of `RespireClient.connect` (API.md "RespireOptions"); every one is checked before a socket opens. */
export interface RespireOptions {
  /**
   * `{ host, port = 6379 }` objects, `'host:port'` strings, `redis://` / `rediss://` URLs, or
   * `{ path }` (a Unix socket, standalone only). One for a standalone server; in Cluster mode the
   * seeds, any reachable node will do.
   */
  endpoints?: RespireEndpointInput[];
  /**
   * `redis://[user[:password]@]host[:port][/database]`, or `rediss://…` to turn on `tls`: the
   * endpoint and what the URL sets, instead of `endpoints`. An option the URL also sets must agree.
   */
  url?: string;
  /** Redis Cluster mode (API.md "Cluster"). Default false. */
  useCluster?: boolean;
  /** Cluster settings: topology refresh, redirections, address rewriting. */
  cluster?: RespireClusterOptions;
  /** Where read-only commands go in Cluster and Sentinel mode: `primary` (default), `replica`, `replicaPreferred`. */
  readFrom?: ReadFrom;
  /**
   * Standalone read replicas: read-only commands go to them under `readFrom`, everything else to
   * `endpoints[0]`. Not with `circuitBreaker` (seed 000 "Limits").
   */
  replicaEndpoints?: RespireEndpointInput[];
  /** Sentinel mode (API.md "Sentinel"): the sentinels find the primary; `endpoints` is then not set. */
  sentinel?: RespireSentinelOptions;
  /** ACL user name, sent in `HELLO … AUTH`; needs `password`. Also from a URL's user info. */
  username?: string;
  /** `requirepass` or the ACL user's password; never shown in an error, metric or diagnostic. */
  password?: string;
  /** `CLIENT SETNAME`, sent in `HELLO`: printable ASCII without spaces. */
  clientName?: string;
  /** Database selected after the handshake. Default 0. */
  database?: number;
  /** `true`, or node's `tls.ConnectionOptions` (CA, client certificate, …). Default off; `rediss://` turns it on. */
  tls?: boolean | tls.ConnectionOptions;
  /** 3 (default) asks for RESP3 and falls back to RESP2; 2 forces RESP2. */
  protocol?: 2 | 3;
  /** Socket setup plus handshake, ms. Default 5000. */
  connectTimeout?: number;
  /** Reply deadline of a sent command, ms; 0 = none. Blocking commands are exempt. Default 5000. */
  commandTimeout?: number;
  /** Longest wait for connection capacity, ms. Default 5000. */
  acquireTimeout?: number;
  /** Commands not yet written, per connection. Default 65536. */
  maxPendingCommands?: number;
  /** Connections kept for blocking commands (BLPOP, WAIT, …) and WATCH sessions. Default 64. */
  maxDedicatedConnections?: number;
  /** Delay policy between reconnect attempts: exponential 50 ms to 5 s with full jitter by default; `false` never reconnects. */
  reconnect?: ReconnectOption;
  /** Retries of commands never sent and of read-only commands. Default `{ maxAttempts: 1 }` (none). */
  retry?: RespireRetryOptions;
  /**
   * The per-endpoint circuit breaker; `null` (the default) adds no per-command work. Or `{ shared }`:
   * the circuits of a SharedCircuitRegistry (attached in this thread), shared with every client in
   * every worker thread that uses it; its options apply.
   */
  circuitBreaker?:
    | RespireCircuitBreakerOptions
    | {
        /** The registry, attached in this thread, whose circuits (and options) this client uses. */
        shared: SharedCircuitRegistry;
      }
    | null;
  /** Bulk and simple strings as Buffer instead of string. Default false. */
  returnBuffers?: boolean;
  /** Replies of read-only single-key commands kept locally until Redis invalidates them (API.md). Default none. */
  clientSideCache?: RespireClientSideCacheOptions | null;
  /**
   * An OpenTelemetry-compatible Meter (a structural type: `metrics.getMeter('respire')` fits).
   * Default none: no instrument is created and nothing is measured (metrics.ts).
   */
  meter?: RespireMeter | null;
  /** What `meter` reports: RespireMetricGroups values. Default every group. */
  metricGroups?: readonly RespireMetricGroup[];
  /**
   * Server maintenance notifications (PROTOCOL.md §5): `auto` (default) opts in over RESP3 and
   * ignores a server that refuses; `enabled` fails a connection the server refuses; `disabled`.
   */
  maintenance?: MaintenanceMode;
  /** The reply deadline, ms, at least given to commands while a maintenance window is open. Default 10000. */
  maintenanceRelaxedTimeout?: number;
  /** Injected time source (monotonic ms), for tests. */
  clock?: Clock;
  /** Injected randomness, for tests. */
  random?: RandomSource;
}

export interface ResolvedOptions extends ResolvedModeOptions {
  /** The standalone endpoint, or the first seed. */
  endpoint: RespireEndpoint;
  /** Every configured endpoint: the standalone one, or the Cluster seeds. */
  endpoints: readonly RespireEndpoint[];
  /** Standalone read replicas (`replicaEndpoints`); empty otherwise. */
  replicaEndpoints: readonly RespireEndpoint[];
  username: string | undefined;
  password: string | undefined;
  clientName: string | undefined;
  database: number;
  tls: boolean | tls.ConnectionOptions | undefined;
  protocol: 2 | 3;
  connectTimeout: number;
  commandTimeout: number;
  acquireTimeout: number;
  maxPendingCommands: number;
  maxDedicatedConnections: number;
  reconnect: ReconnectFunction | false;
  retryAttempts: number;
  circuitBreaker: ResolvedCircuitBreakerOptions | null;
  /** The registry of `circuitBreaker: { shared }`, whose circuits the client leases; else null. */
  sharedCircuits: SharedCircuitRegistry | null;
  returnBuffers: boolean;
  clientSideCache: ResolvedCacheOptions | null;
  meter: RespireMeter | null;
  /** The groups `meter` reports; empty without a meter. */
  metricGroups: ReadonlySet<RespireMetricGroup>;
  maintenanceMode: MaintenanceMode;
  maintenanceRelaxedTimeout: number;
  clock: Clock;
  random: RandomSource;
  /** Internal (socket-factory.ts): simulated sockets for test/sim; undefined for real ones. */
  socketFactory: SocketFactory | undefined;
}

/** Every RespireOptions name, checked against the interface so that neither grows alone. */
const OPTION_NAMES = Object.keys({
  endpoints: true,
  url: true,
  useCluster: true,
  cluster: true,
  readFrom: true,
  sentinel: true,
  replicaEndpoints: true,
  username: true,
  password: true,
  clientName: true,
  database: true,
  tls: true,
  protocol: true,
  connectTimeout: true,
  commandTimeout: true,
  acquireTimeout: true,
  maxPendingCommands: true,
  maxDedicatedConnections: true,
  reconnect: true,
  retry: true,
  circuitBreaker: true,
  returnBuffers: true,
  clientSideCache: true,
  meter: true,
  metricGroups: true,
  maintenance: true,
  maintenanceRelaxedTimeout: true,
  clock: true,
  random: true,
} satisfies Record<keyof RespireOptions, true>);
const RETRY_OPTION_NAMES = Object.keys({ maxAttempts: true } satisfies Record<
  keyof RespireRetryOptions,
  true
>);
const RECONNECT_OPTION_NAMES = Object.keys({
  minDelay: true,
  maxDelay: true,
  maxAttempts: true,
} satisfies Record<keyof ExponentialReconnect, true>);

export function resolveOptions(options: RespireOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new RespireConfigurationError('options', options, 'an object');
  }
  refuseUnknownOptions(options, OPTION_NAMES);
  const modeOptions = resolveModeOptions(options);
  if (modeOptions.mode === 'sentinel' && options.endpoints !== undefined) {
    throw new RespireConfigurationError(
      'endpoints',
      options.endpoints,
      'not set with sentinel: the sentinels name the data nodes',
    );
  }
  // URLs set credentials, database and TLS too (connection-url.ts); `given` has them merged.
  const given = resolveUrls(options, modeOptions.mode);
  // Sentinel mode has no configured data endpoint: the router names the current primary.
  const endpoints = modeOptions.mode === 'sentinel' ? ['0.0.0.0:6379'] : given.endpoints;
  const cluster = modeOptions.mode === 'cluster';
  if (!Array.isArray(endpoints) || endpoints.length === 0 || (!cluster && endpoints.length !== 1)) {
    throw new RespireConfigurationError(
      'endpoints',
      endpoints,
      cluster ? 'an array of one or more seed endpoints' : 'an array of exactly one endpoint (standalone)',
    );
  }
  // A Unix socket is a standalone server's: Cluster seeds are addresses the nodes announce.
  const parsed = endpoints.map((endpoint, i) => parseEndpoint(endpoint, `endpoints[${i}]`, !cluster));
  const sharedCircuits = sharedRegistry(options.circuitBreaker);
  const circuitBreaker =
    options.circuitBreaker === undefined || options.circuitBreaker === null
      ? null
      : (sharedCircuits?.options ??
        validateCircuitBreakerOptions(
          options.circuitBreaker as RespireCircuitBreakerOptions,
          'circuitBreaker.',
        ));
  const random = options.random ?? systemRandom;
  if (given.username !== undefined && given.password === undefined) {
    throw new RespireConfigurationError('password', undefined, 'a string when username is set');
  }
  if (options.retry !== undefined && (options.retry === null || typeof options.retry !== 'object')) {
    throw new RespireConfigurationError(
      'retry',
      options.retry,
      '{ maxAttempts } with maxAttempts from 1 through 100',
    );
  }
  if (options.retry !== undefined) rejectUnknownOptions(options.retry, RETRY_OPTION_NAMES, 'retry.');
  return {
    ...modeOptions,
    endpoint: parsed[0]!,
    endpoints: modeOptions.mode === 'sentinel' ? [] : parsed,
    replicaEndpoints: replicaEndpoints(options.replicaEndpoints),
    username: optionalString(given.username, 'username'),
    password: optionalString(given.password, 'password'),
    clientName: clientName(options.clientName),
    database: integer(given.database, 'database', 0, 0, 2 ** 31 - 1),
    tls: tlsOption(given.tls),
    protocol: protocol(options.protocol),
    connectTimeout: integer(options.connectTimeout, 'connectTimeout', 5000, 1, MAX_TIMEOUT_MS),
    commandTimeout: integer(options.commandTimeout, 'commandTimeout', 5000, 0, MAX_TIMEOUT_MS),
    acquireTimeout: integer(options.acquireTimeout, 'acquireTimeout', 5000, 0, MAX_TIMEOUT_MS),
    maxPendingCommands: integer(options.maxPendingCommands, 'maxPendingCommands', 65536, 1, 2 ** 24),
    maxDedicatedConnections: integer(options.maxDedicatedConnections, 'maxDedicatedConnections', 64, 1, 4096),
    reconnect: reconnect(options.reconnect, random),
    retryAttempts: integer(options.retry?.maxAttempts, 'retry.maxAttempts', 1, 1, 100),
    circuitBreaker,
    sharedCircuits,
    returnBuffers: options.returnBuffers === true,
    clientSideCache: resolveCacheOptions(options.clientSideCache),
    ...resolveMetricOptions(options.meter, options.metricGroups),
    maintenanceMode: maintenanceMode(options.maintenance),
    maintenanceRelaxedTimeout: integer(
      options.maintenanceRelaxedTimeout,
      'maintenanceRelaxedTimeout',
      10_000,
      1,
      MAX_TIMEOUT_MS,
    ),
    clock: options.clock ?? systemClock,
    random,
    socketFactory: socketFactoryOf(options),
  };
}

function maintenanceMode(value: unknown): MaintenanceMode {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'enabled' || value === 'disabled') return value;
  throw new RespireConfigurationError('maintenance', value, "'auto', 'enabled' or 'disabled'");
}

/**
 * The registry of `circuitBreaker: { shared }`, or null for plain circuit options. Its options
 * were fixed when it was made, so `shared` comes alone (API.md "Circuits shared across worker threads").
 */
function sharedRegistry(value: unknown): SharedCircuitRegistry | null {
  if (value === null || typeof value !== 'object' || !('shared' in value)) return null;
  const { shared, ...others } = value as { shared: unknown };
  if (!(shared instanceof SharedCircuitRegistry)) {
    throw new RespireConfigurationError(
      'circuitBreaker.shared',
      shared,
      'a SharedCircuitRegistry (new SharedCircuitRegistry(options), or SharedCircuitRegistry.attach(buffer))',
    );
  }
  const extra = Object.keys(others)[0];
  if (extra !== undefined) {
    throw new RespireConfigurationError(
      `circuitBreaker.${extra}`,
      (others as Record<string, unknown>)[extra],
      'not set beside circuitBreaker.shared: the shared registry fixes the options for every thread',
    );
  }
  return shared;
}

function replicaEndpoints(value: unknown): RespireEndpoint[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length === 0) {
    throw new RespireConfigurationError('replicaEndpoints', value, 'an array of one or more endpoints');
  }
  return value.map((endpoint, i) => parseEndpoint(endpoint, `replicaEndpoints[${i}]`, true));
}

/** An integer option in [min, max], or its default when absent. */
export function integer(value: unknown, option: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RespireConfigurationError(option, value, `an integer from ${min} through ${max}`);
  }
  return value;
}

function optionalString(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new RespireConfigurationError(option, value, 'a string');
  return value;
}

function clientName(value: unknown): string | undefined {
  const name = optionalString(value, 'clientName');
  // Redis refuses names with spaces or control characters (PROTOCOL.md §1.4); say so up front.
  if (name !== undefined && !/^[\x21-\x7e]+$/.test(name)) {
    throw new RespireConfigurationError(
      'clientName',
      name,
      'printable ASCII without spaces, at least 1 character',
    );
  }
  return name;
}

function tlsOption(value: unknown): boolean | tls.ConnectionOptions | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RespireConfigurationError('tls', value, 'true, false or a tls.ConnectionOptions object');
  }
  return value as tls.ConnectionOptions;
}

function protocol(value: unknown): 2 | 3 {
  if (value === undefined) return 3;
  if (value !== 2 && value !== 3) throw new RespireConfigurationError('protocol', value, '2 or 3');
  return value;
}

function reconnect(value: ReconnectOption | undefined, random: RandomSource): ReconnectFunction | false {
  if (value === false) return false;
  if (typeof value === 'function') return value;
  if (value !== undefined && (value === null || typeof value !== 'object')) {
    throw new RespireConfigurationError(
      'reconnect',
      value,
      'false, a function, or { minDelay, maxDelay, maxAttempts }',
    );
  }
  if (value !== undefined) rejectUnknownOptions(value, RECONNECT_OPTION_NAMES, 'reconnect.');
  const minDelay = integer(
    value?.minDelay,
    'reconnect.minDelay',
    DEFAULT_RECONNECT.minDelay,
    0,
    MAX_TIMEOUT_MS,
  );
  const maxDelay = integer(
    value?.maxDelay,
    'reconnect.maxDelay',
    DEFAULT_RECONNECT.maxDelay,
    minDelay,
    MAX_TIMEOUT_MS,
  );
  const attempts = value?.maxAttempts;
  const maxAttempts =
    attempts === undefined || attempts === Number.POSITIVE_INFINITY
      ? Number.POSITIVE_INFINITY
      : integer(attempts, 'reconnect.maxAttempts', 0, 0, 2 ** 31 - 1);
  return exponentialReconnect({ minDelay, maxDelay, maxAttempts }, random);
}
