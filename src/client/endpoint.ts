// Endpoint option parsing: `{ host, port = 6379 }` or `'host:port'` (IPv6 as `'[::1]:6379'`), and
// `{ path }` for a Unix socket where the caller allows it. `redis://` URLs carry credentials too, so
// options.ts parses them (connection-url.ts) before endpoints reach this file.

import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';
import { describeEndpoint } from '../util/describe-endpoint.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';

/**
 * An endpoint as configured: `'host:port'`, `{ host, port = 6379 }`, `{ path }` (a Unix socket),
 * or, in `endpoints`, a `redis://` / `rediss://` URL.
 */
export type RespireEndpointInput =
  | string
  | {
      /** Host name or IP address. */
      host: string;
      /** TCP port. Default 6379. */
      port?: number;
    }
  | {
      /** A Unix socket's path (standalone endpoints and `replicaEndpoints`). */
      path: string;
    };

export const DEFAULT_PORT = 6379;

const ALLOWED = "'host:port' or { host, port } with a port from 1 through 65535";
const ALLOWED_WITH_PATH = `${ALLOWED}, or { path } (a Unix socket)`;
const NO_URLS = `${ALLOWED}; a redis:// URL only in endpoints or url (its credentials are the client's)`;
const ENDPOINT_NAMES = ['host', 'port'] as const;
const PATH_NAMES = ['path'] as const;

/**
 * Parses one endpoint given at `option`. `{ path }` is accepted only where `paths` says so: a
 * sentinel or a Cluster seed is a TCP address the servers themselves announce.
 * @throws RespireConfigurationError naming `option`.
 */
export function parseEndpoint(input: unknown, option: string, paths = false): RespireEndpoint {
  if (typeof input === 'string') {
    if (input.includes('://')) throw new RespireConfigurationError(option, input, NO_URLS);
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(input.trim());
    if (match === null) throw new RespireConfigurationError(option, input, ALLOWED);
    const host = (match[1] ?? match[2])!;
    return endpoint(host, match[3] === undefined ? DEFAULT_PORT : Number(match[3]), option, input);
  }
  if (input instanceof URL) throw new RespireConfigurationError(option, input, NO_URLS);
  if (input !== null && typeof input === 'object' && (input as { path?: unknown }).path !== undefined) {
    return socketPath(input, option, paths);
  }
  if (input !== null && typeof input === 'object' && typeof (input as { host?: unknown }).host === 'string') {
    rejectUnknownOptions(input, ENDPOINT_NAMES, `${option}.`);
    const { host, port } = input as { host: string; port?: unknown };
    return endpoint(host, port === undefined ? DEFAULT_PORT : port, option, input);
  }
  throw new RespireConfigurationError(option, input, paths ? ALLOWED_WITH_PATH : ALLOWED);
}

/**
 * A Unix socket endpoint: `host` holds the path too, so that what reads `host` (metrics'
 * `server.address`, as OpenTelemetry names a socket) needs no second case; `port` is 0.
 */
function socketPath(input: object, option: string, paths: boolean): RespireEndpoint {
  const { path } = input as { path: unknown };
  if (!paths) {
    throw new RespireConfigurationError(`${option}.path`, path, `not set: ${ALLOWED} here (a TCP address)`);
  }
  rejectUnknownOptions(input, PATH_NAMES, `${option}.`);
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
    throw new RespireConfigurationError(`${option}.path`, path, 'a Unix socket path, a non-empty string');
  }
  return { host: path, port: 0, path };
}

function endpoint(host: string, port: unknown, option: string, input: unknown): RespireEndpoint {
  // A host holds no user info, path or blanks: `user:pass@host` is a credential in the wrong place.
  const badHost = host.length === 0 || /[@/\s]/.test(host);
  if (badHost || typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new RespireConfigurationError(option, input, ALLOWED);
  }
  return { host, port };
}

/**
 * `host:port` as configured, or a Unix socket's path: the identity of an endpoint's circuit
 * history (BREAKER.md 15).
 */
export function endpointKey(endpoint: RespireEndpoint): string {
  return describeEndpoint(endpoint);
}
