// Sentinel options (API.md "Sentinel", issue 12 "Discovery"): `sentinel: { serviceName, endpoints,
// username?, password?, tls? }`. The credentials and TLS here go only to sentinels, never to data
// nodes (seed 000 "Sentinel"); an invalid option is a RespireConfigurationError naming it as
// `sentinel.<name>`, with credentials redacted (issue 10 #5, RespireConfigurationError).

import type tls from 'node:tls';
import { parseEndpoint } from '../client/endpoint.js';
import type { RespireSentinelOptions } from '../client/mode-options.js';
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';
import type { TlsOption } from '../transport/socket.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';

export type { RespireSentinelOptions };

export interface ResolvedSentinelOptions {
  readonly serviceName: string;
  /** At least one, without repeats, in the order given. */
  readonly endpoints: readonly RespireEndpoint[];
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: TlsOption;
}

/** The port sentinels listen on unless told otherwise (`redis-sentinel`'s default). */
export const DEFAULT_SENTINEL_PORT = 26379;

/** Most sentinels given or learned: a bound on every list (STYLE.md, TigerBeetle). */
export const MAX_SENTINELS = 64;

const NAMES = Object.keys({
  serviceName: true,
  endpoints: true,
  username: true,
  password: true,
  tls: true,
} satisfies Record<keyof RespireSentinelOptions, true>);

/**
 * Checks `value` (the `sentinel` option) and resolves it.
 * @throws RespireConfigurationError naming `sentinel`, `sentinel.serviceName`, `sentinel.endpoints`
 *   (or one of them, `sentinel.endpoints[2]`), `sentinel.username`, `sentinel.password` or `sentinel.tls`.
 */
export function validateSentinelOptions(value: unknown): ResolvedSentinelOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RespireConfigurationError(
      'sentinel',
      value,
      '{ serviceName, endpoints, username?, password?, tls? }',
    );
  }
  rejectUnknownOptions(value, NAMES, 'sentinel.');
  const given = value as Record<string, unknown>;
  const { serviceName } = given;
  // Sentinel names are one word: SENTINEL MONITOR takes it as one argument, events split on spaces.
  if (typeof serviceName !== 'string' || !/^[\x21-\x7e]{1,256}$/.test(serviceName)) {
    throw new RespireConfigurationError(
      'sentinel.serviceName',
      serviceName,
      'a non-empty string of printable ASCII without spaces, at most 256 characters',
    );
  }
  const username = optionalString(given.username, 'sentinel.username');
  const password = optionalString(given.password, 'sentinel.password');
  if (username !== undefined && password === undefined) {
    throw new RespireConfigurationError(
      'sentinel.password',
      undefined,
      'a string when sentinel.username is set',
    );
  }
  return {
    serviceName,
    endpoints: endpoints(given.endpoints),
    username,
    password,
    tls: tlsOption(given.tls),
  };
}

function endpoints(value: unknown): RespireEndpoint[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SENTINELS) {
    throw new RespireConfigurationError(
      'sentinel.endpoints',
      value,
      `an array of 1 through ${MAX_SENTINELS} sentinel endpoints ('host:port' or { host, port })`,
    );
  }
  const seen = new Set<string>();
  return value.map((input: unknown, index) => {
    const option = `sentinel.endpoints[${index}]`;
    const endpoint = withSentinelPort(parseEndpoint(input, option), input);
    const key = `${endpoint.host}\u0000${endpoint.port}`;
    if (seen.has(key)) throw new RespireConfigurationError(option, input, 'a sentinel not listed before it');
    seen.add(key);
    return endpoint;
  });
}

/** parseEndpoint defaults to 6379, the data port; a sentinel given without a port listens on 26379. */
function withSentinelPort(endpoint: RespireEndpoint, input: unknown): RespireEndpoint {
  const portGiven =
    typeof input === 'string' ? /:\d+$/.test(input.trim()) : (input as { port?: unknown }).port !== undefined;
  return portGiven ? endpoint : { host: endpoint.host, port: DEFAULT_SENTINEL_PORT };
}

function optionalString(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new RespireConfigurationError(option, value, 'a string');
  return value;
}

function tlsOption(value: unknown): TlsOption {
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RespireConfigurationError(
      'sentinel.tls',
      value,
      'true, false or a tls.ConnectionOptions object',
    );
  }
  return value as tls.ConnectionOptions;
}
