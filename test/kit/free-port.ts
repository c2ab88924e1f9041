// Finds loopback TCP ports that are free right now, for servers the test kit starts.
import net from 'node:net';

/** The only address the kit binds or connects to. */
export const LOOPBACK = '127.0.0.1';

/**
 * A port the kernel just handed out for `127.0.0.1`. The port is released before this returns, so
 * another process may take it before our server binds it: callers retry on "Address already in use".
 * Asking the kernel (port 0) rather than counting up from a base keeps parallel vitest workers apart.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: LOOPBACK, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/** Whether `port` on `127.0.0.1` can be bound now (nothing listens there). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(false);
      else reject(error);
    });
    server.listen({ host: LOOPBACK, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
