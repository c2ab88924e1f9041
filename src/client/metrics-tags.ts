// The tags (OpenTelemetry attributes) of Respire's measurements (seed 000 "Circuit metrics",
// API.md "Metrics"): built once per endpoint and reused, so recording allocates nothing. Tags
// never hold keys, payloads, error messages or credentials; an error is named by its class or
// its Redis error code only.
import type { CircuitState } from '../breaker/index.js';
import { type RespireEndpoint, RespireServerError } from '../errors.js';
import { LIBRARY_VERSION } from '../transport/connect.js';
import { DEFAULT_PORT, endpointKey } from './endpoint.js';

/** Attributes of one measurement, as OpenTelemetry's `Attributes` accepts them. */
export type RespireMetricAttributes = Readonly<Record<string, string | number>>;

export const Tag = {
  serverAddress: 'server.address',
  /** Omitted for the default port 6379, as OpenTelemetry's Redis conventions ask. */
  serverPort: 'server.port',
  dbSystem: 'db.system.name',
  library: 'redis.client.library',
  stateFrom: 'respire.circuit.state.from',
  stateTo: 'respire.circuit.state.to',
  errorType: 'error.type',
} as const;

/** `redis.client.library`: the name and the version the handshake reports (transport/connect.ts). */
export const LIBRARY_TAG = `Respire:${LIBRARY_VERSION}`;

/** OpenTelemetry's value of `error.type` for what has no low-cardinality name. */
export const OTHER_ERROR_TYPE = '_OTHER';

/** Distinct `error.type` values kept per endpoint; later new ones are reported as `_OTHER`. */
export const MAX_ERROR_TYPES = 64;

const STATE_INDEX: Readonly<Record<CircuitState, number>> = { closed: 0, open: 1, half_open: 2 };

/**
 * The error codes Redis 7 itself sends (the first word of its error replies: server, cluster,
 * replication, scripting, streams, ACL and sentinel errors, as found in the 7.0 server's reply
 * strings). Only these name an error reply in `error.type`: a script's `redis.error_reply()` or a
 * module may start its reply with any word, a secret included, and each new word would be a new
 * series (issue 10).
 */
export const REDIS_ERROR_CODES: ReadonlySet<string> = new Set([
  'ASK',
  'BUSY',
  'BUSYGROUP',
  'BUSYKEY',
  'CLUSTERDOWN',
  'CROSSSLOT',
  'DENIED',
  'ERR',
  'EXECABORT',
  'INPROG',
  'INVALIDOBJ',
  'IOERR',
  'LOADING',
  'MASTERDOWN',
  'MISCONF',
  'MOVED',
  'NOAUTH',
  'NOGOODSLAVE',
  'NOGROUP',
  'NOMASTERLINK',
  'NOPERM',
  'NOPROTO',
  'NOQUORUM',
  'NOREPLICAS',
  'NOSCRIPT',
  'NOTBUSY',
  'OOM',
  'READONLY',
  'TRYAGAIN',
  'UNBLOCKED',
  'UNKILLABLE',
  'WRONGPASS',
  'WRONGTYPE',
]);

/** An error class name (`RespireTimeoutError`, `AbortError`); else not a name. */
const ERROR_NAME = /^[A-Za-z_$][\w$.]{0,63}$/;

/**
 * The `error.type` of an error a caller receives: the Redis error code of an error reply when it
 * is one Redis sends (REDIS_ERROR_CODES), else the error's class name (`RespireServerError` for
 * any other error reply), and `_OTHER` for anything else (an abort reason that is not an Error,
 * say).
 */
export function errorTypeOf(error: unknown): string {
  if (error instanceof RespireServerError && REDIS_ERROR_CODES.has(error.code)) return error.code;
  if (error instanceof Error) return ERROR_NAME.test(error.name) ? error.name : OTHER_ERROR_TYPE;
  return OTHER_ERROR_TYPE;
}

/** Every tag set one endpoint needs, each built on first use, then frozen and reused. */
export class EndpointTags {
  /** The common tags: server, database system and library. */
  readonly base: RespireMetricAttributes;
  private readonly transitions: (RespireMetricAttributes | undefined)[] = new Array(9).fill(undefined);
  private readonly errors = new Map<string, RespireMetricAttributes>();

  constructor(endpoint: RespireEndpoint) {
    const base: Record<string, string | number> = { [Tag.serverAddress]: endpoint.host };
    // A Unix socket has no port: `server.address` is its path (OpenTelemetry's convention).
    if (endpoint.port !== DEFAULT_PORT && endpoint.path === undefined) base[Tag.serverPort] = endpoint.port;
    base[Tag.dbSystem] = 'redis';
    base[Tag.library] = LIBRARY_TAG;
    this.base = Object.freeze(base);
  }

  /** The common tags plus `respire.circuit.state.from` and `.to`. */
  transition(from: CircuitState, to: CircuitState): RespireMetricAttributes {
    const index = STATE_INDEX[from] * 3 + STATE_INDEX[to];
    return (this.transitions[index] ??= Object.freeze({
      ...this.base,
      [Tag.stateFrom]: from,
      [Tag.stateTo]: to,
    }));
  }

  /** The common tags plus `error.type`, bounded to MAX_ERROR_TYPES distinct values. */
  error(errorType: string): RespireMetricAttributes {
    const known = this.errors.get(errorType);
    if (known !== undefined) return known;
    // One place is kept for `_OTHER` until it is taken.
    const room = this.errors.has(OTHER_ERROR_TYPE) ? MAX_ERROR_TYPES : MAX_ERROR_TYPES - 1;
    const type = this.errors.size < room ? errorType : OTHER_ERROR_TYPE;
    const tags = this.errors.get(type) ?? Object.freeze({ ...this.base, [Tag.errorType]: type });
    this.errors.set(type, tags);
    return tags;
  }
}

/** Most endpoints whose tags are kept by `host:port`; past it the cache starts over. */
const MAX_CACHED_ENDPOINTS = 4096;

/**
 * Tags by endpoint. The same endpoint object (the client passes its configured one everywhere)
 * hits a one-entry cache; another object for the same `host:port` finds the same tags by key.
 */
export class EndpointTagCache {
  private lastEndpoint: RespireEndpoint | undefined;
  private lastTags: EndpointTags | undefined;
  private readonly byObject = new WeakMap<RespireEndpoint, EndpointTags>();
  private readonly byKey = new Map<string, EndpointTags>();

  of(endpoint: RespireEndpoint): EndpointTags {
    if (endpoint === this.lastEndpoint) return this.lastTags!;
    let tags = this.byObject.get(endpoint);
    if (tags === undefined) {
      const key = endpointKey(endpoint);
      tags = this.byKey.get(key);
      if (tags === undefined) {
        if (this.byKey.size >= MAX_CACHED_ENDPOINTS) this.byKey.clear();
        tags = new EndpointTags(endpoint);
        this.byKey.set(key, tags);
      }
      this.byObject.set(endpoint, tags);
    }
    this.lastEndpoint = endpoint;
    this.lastTags = tags;
    return tags;
  }
}
