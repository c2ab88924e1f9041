// How errors, circuits and messages name an endpoint (BREAKER.md 15: a circuit's identity is the
// endpoint as configured): `host:port`, `[::1]:6379` for IPv6, or a Unix socket's path.
/** `host:port` (`[::1]:6379` for IPv6), or a Unix socket's path. (A RespireEndpoint, typed by shape: errors.ts imports this file.) */
export function describeEndpoint(endpoint: {
  readonly host: string;
  readonly port: number;
  readonly path?: string | undefined;
}): string {
  if (endpoint.path !== undefined) return endpoint.path;
  return endpoint.host.includes(':')
    ? `[${endpoint.host}]:${endpoint.port}`
    : `${endpoint.host}:${endpoint.port}`;
}
