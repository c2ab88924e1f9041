// Opens the TCP, Unix or TLS socket to one endpoint (API.md `tls`): no Nagle delay, keep-alive on,
// settled once by whichever of connect, error or abort comes first.

import net from 'node:net';
import tls from 'node:tls';
import { RespireConnectionError, type RespireEndpoint } from '../errors.js';
import { describeEndpoint } from '../util/describe-endpoint.js';
import type { SlabReader } from './slab-reader.js';

export type TlsOption = boolean | tls.ConnectionOptions | undefined;

/** Keep-alive probes start after this long idle, so a dead peer is noticed without traffic. */
const KEEP_ALIVE_DELAY_MS = 10_000;

/**
 * Connects to `endpoint`. Rejects with RespireConnectionError on a socket or TLS error, or with the
 * signal's reason when `signal` aborts first (the socket is destroyed either way).
 */
export function openSocket(
  endpoint: RespireEndpoint,
  tlsOption: TlsOption,
  signal: AbortSignal,
  /** Plain TCP only: the socket reads into this reader's slabs instead of emitting 'data'. */
  reader?: SlabReader,
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const useTls = tlsOption !== undefined && tlsOption !== false;
    const { path } = endpoint;
    // A Unix socket (`{ path }` endpoints) has no host to verify a certificate against.
    const address = path === undefined ? { host: endpoint.host, port: endpoint.port } : { path };
    const socket = useTls
      ? tls.connect({
          ...address,
          servername: path === undefined && net.isIP(endpoint.host) === 0 ? endpoint.host : undefined,
          ...(tlsOption === true ? {} : tlsOption),
        })
      : net.connect({
          ...address,
          ...(reader === undefined ? {} : { onread: { buffer: reader.buffer, callback: reader.callback } }),
        });
    // Nagle and keep-alive are TCP's; a Unix socket has neither.
    if (path === undefined) {
      socket.setNoDelay(true);
      socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
    }

    const cleanup = (): void => {
      socket.off(useTls ? 'secureConnect' : 'connect', onConnect);
      socket.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onConnect = (): void => {
      cleanup();
      resolve(socket);
    };
    const onError = (error: Error): void => {
      cleanup();
      socket.destroy();
      reject(
        new RespireConnectionError(`cannot connect to ${describeEndpoint(endpoint)}: ${error.message}`, {
          endpoint,
          cause: error,
          written: false,
        }),
      );
    };
    const onAbort = (): void => {
      cleanup();
      socket.destroy();
      reject(signal.reason);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    socket.once(useTls ? 'secureConnect' : 'connect', onConnect);
    socket.once('error', onError);
    signal.addEventListener('abort', onAbort);
  });
}
