// What the outage scenario asks of each client, in its default configuration. One module per
// client, imported only inside that contender's own process (bench/outage/contender-process.ts).
import type { FailureOutcome } from '../call-log.js';

export interface OutageDriver {
  /** PUBLISH; resolves with the receiver count. */
  publish(channel: string, message: string): Promise<unknown>;
  /** XADD with an approximate MAXLEN, so the stream stays small; resolves with the entry ID. */
  xadd(stream: string, message: string): Promise<unknown>;
  /** How a failed call counts: the client's fail-fast rejection, a timeout, or another failure. */
  classify(error: unknown): FailureOutcome;
  /** Called whenever the client's circuit opens; only clients with a breaker have one. */
  onCircuitOpen?(listener: () => void): void;
}

/** Entries kept per stream (approximately): the scenario measures the client, not Redis's memory. */
export const STREAM_MAXLEN = 1000;

/** `host:port`, as ioredis's `natMap` and node-redis's `nodeAddressMap` key an address. */
export function endpointName(endpoint: { host: string; port: number }): string {
  return `${endpoint.host}:${endpoint.port}`;
}

export function sameEndpoint(a: { host: string; port: number }, b: { host: string; port: number }): boolean {
  return a.host === b.host && a.port === b.port;
}
