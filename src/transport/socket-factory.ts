// An internal seam (issue 16): what opens a connection's socket. By default `openSocket` (a real
// TCP or TLS socket); the deterministic simulation (test/sim) puts a factory of simulated duplex
// streams here so the client's real code runs with no socket and, with a clock that has timers
// (util/clock.ts), no real timer. Not part of the public options: it is set under a symbol key
// that option validation never sees (Object.keys skips symbols), and costs one property read per
// connection when unused.
import type net from 'node:net';
import type { RespireEndpoint } from '../errors.js';
import type { SlabReader } from './slab-reader.js';
import type { TlsOption } from './socket.js';

/**
 * Opens a socket to `endpoint` as `openSocket` does: resolves once connected, rejects with a
 * RespireConnectionError (`written: false`) when refused, or with the signal's reason when it
 * aborts first. What it returns needs only the `net.Socket` members a Connection uses ('data' or
 * `reader`, 'drain', 'error', 'close', write, cork, uncork, end, destroy).
 */
export type SocketFactory = (
  endpoint: RespireEndpoint,
  tls: TlsOption,
  signal: AbortSignal,
  reader: SlabReader | undefined,
) => Promise<net.Socket>;

/** The key a test sets its factory under in the client options. */
export const SOCKET_FACTORY: unique symbol = Symbol('respire.socketFactory');

/** The factory under SOCKET_FACTORY in `options`, if it is a function. */
export function socketFactoryOf(options: object): SocketFactory | undefined {
  const factory = (options as { [SOCKET_FACTORY]?: unknown })[SOCKET_FACTORY];
  return typeof factory === 'function' ? (factory as SocketFactory) : undefined;
}
