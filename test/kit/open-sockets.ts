// How many sockets this process still holds open to a port: what a test reads to prove that a
// close() gave up a connect in progress (the socket would otherwise keep the process alive).
import type net from 'node:net';

/** This process's open sockets to `port` (the client's side of proxied connections). */
export function socketsTo(port: number): number {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter(
    (handle) => (handle as net.Socket).remotePort === port && !(handle as net.Socket).destroyed,
  ).length;
}
