// One readiness check of a starting redis-server: connect, PING, read the first reply line.
import net from 'node:net';
import tls from 'node:tls';
import type { TlsCertificate } from './tls-certificate.js';

export interface ProbeTarget {
  host: string;
  port: number;
  /** Connect with TLS, trusting (and presenting) this certificate. */
  tls?: TlsCertificate | undefined;
  /** Give up on this one attempt after this long. Default 1,000 ms. */
  attemptTimeoutMs?: number;
}

/**
 * 'ready' once the server answers PING with anything but `-LOADING` (`-NOAUTH` means it is up and
 * wants a password); 'retry' when the connection is refused, reset, slow or still loading.
 */
export function probeRedis(target: ProbeTarget): Promise<'ready' | 'retry'> {
  return new Promise((resolve) => {
    const options = { host: target.host, port: target.port };
    const socket = target.tls
      ? tls.connect({ ...options, ca: target.tls.ca, cert: target.tls.cert, key: target.tls.key })
      : net.connect(options);
    let received = '';
    const finish = (answer: 'ready' | 'retry') => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(target.attemptTimeoutMs ?? 1_000, () => finish('retry'));
    socket.once('error', () => finish('retry'));
    socket.once('close', () => finish('retry'));
    socket.once(target.tls ? 'secureConnect' : 'connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const lineEnd = received.indexOf('\r\n');
      if (lineEnd !== -1) finish(received.startsWith('-LOADING') ? 'retry' : 'ready');
    });
  });
}
