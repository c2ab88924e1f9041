// Free loopback ports: handed out by the kernel, distinct, and bindable.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { findFreePort, isPortFree, LOOPBACK } from './free-port.js';

describe('findFreePort', () => {
  it('returns a port nothing listens on, which a server can then bind', async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    expect(await isPortFree(port)).toBe(true);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen({ host: LOOPBACK, port }, resolve));
    expect(await isPortFree(port)).toBe(false);
    await new Promise((resolve) => server.close(resolve));
    expect(await isPortFree(port)).toBe(true);
  });

  it('hands out different ports to concurrent callers', async () => {
    const ports = await Promise.all(Array.from({ length: 8 }, () => findFreePort()));
    expect(new Set(ports).size).toBe(8);
  });
});
