// Endpoint option parsing: `{ host, port = 6379 }` or `'host:port'` (IPv6 as `'[::1]:6379'`).
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';

export type RespireEndpointInput = string | { host: string; port?: number };

export const DEFAULT_PORT = 6379;

export function parseEndpoint(input: unknown, option: string): RespireEndpoint {
  const allowed = "'host:port' or { host, port } with a port from 1 through 65535";
  if (typeof input === 'string') {
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(input.trim());
    if (match === null) throw new RespireConfigurationError(option, input, allowed);
    const host = (match[1] ?? match[2])!;
    return endpoint(host, match[3] === undefined ? DEFAULT_PORT : Number(match[3]), option, input, allowed);
  }
  if (input !== null && typeof input === 'object' && typeof (input as { host?: unknown }).host === 'string') {
    const { host, port } = input as { host: string; port?: unknown };
    return endpoint(host, port === undefined ? DEFAULT_PORT : port, option, input, allowed);
  }
  throw new RespireConfigurationError(option, input, allowed);
}

function endpoint(
  host: string,
  port: unknown,
  option: string,
  input: unknown,
  allowed: string,
): RespireEndpoint {
  if (host.length === 0 || typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new RespireConfigurationError(option, input, allowed);
  }
  return { host, port };
}

/** `host:port` as configured: the identity of an endpoint's circuit history (BREAKER.md 15). */
export function endpointKey(endpoint: RespireEndpoint): string {
  return endpoint.host.includes(':')
    ? `[${endpoint.host}]:${endpoint.port}`
    : `${endpoint.host}:${endpoint.port}`;
}
