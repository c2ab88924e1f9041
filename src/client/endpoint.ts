// Endpoint option parsing: `{ host, port = 6379 }` or `'host:port'` (IPv6 as `'[::1]:6379'`).
// URLs and Unix socket paths (API.md) are not built yet and are refused as such (issue 10).
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';

export type RespireEndpointInput = string | { host: string; port?: number };

export const DEFAULT_PORT = 6379;

const ALLOWED = "'host:port' or { host, port } with a port from 1 through 65535";
const NO_URLS = `${ALLOWED}; redis:// URLs are not supported yet (use username and password)`;
const ENDPOINT_NAMES = ['host', 'port'] as const;

export function parseEndpoint(input: unknown, option: string): RespireEndpoint {
  if (typeof input === 'string') {
    if (input.includes('://')) throw new RespireConfigurationError(option, input, NO_URLS);
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(input.trim());
    if (match === null) throw new RespireConfigurationError(option, input, ALLOWED);
    const host = (match[1] ?? match[2])!;
    return endpoint(host, match[3] === undefined ? DEFAULT_PORT : Number(match[3]), option, input);
  }
  if (input instanceof URL) throw new RespireConfigurationError(option, input, NO_URLS);
  if (input !== null && typeof input === 'object' && (input as { path?: unknown }).path !== undefined) {
    throw new RespireConfigurationError(
      `${option}.path`,
      (input as { path?: unknown }).path,
      'not set: Unix socket endpoints are not supported yet',
    );
  }
  if (input !== null && typeof input === 'object' && typeof (input as { host?: unknown }).host === 'string') {
    rejectUnknownOptions(input, ENDPOINT_NAMES, `${option}.`);
    const { host, port } = input as { host: string; port?: unknown };
    return endpoint(host, port === undefined ? DEFAULT_PORT : port, option, input);
  }
  throw new RespireConfigurationError(option, input, ALLOWED);
}

function endpoint(host: string, port: unknown, option: string, input: unknown): RespireEndpoint {
  // A host holds no user info, path or blanks: `user:pass@host` is a credential in the wrong place.
  const badHost = host.length === 0 || /[@/\s]/.test(host);
  if (badHost || typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new RespireConfigurationError(option, input, ALLOWED);
  }
  return { host, port };
}

/** `host:port` as configured: the identity of an endpoint's circuit history (BREAKER.md 15). */
export function endpointKey(endpoint: RespireEndpoint): string {
  return endpoint.host.includes(':')
    ? `[${endpoint.host}]:${endpoint.port}`
    : `${endpoint.host}:${endpoint.port}`;
}
