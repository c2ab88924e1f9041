// The real-server launcher: start, stop, restart, kill, cleanup, TLS and ACL users.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { isPortFree } from './free-port.js';
import { isProcessAlive } from './process-alive.js';
import { RawConnection } from './raw-connection.js';
import { killAllServersSync, liveServerCount, type RedisServer, startRedisServer } from './redis-server.js';
import { useRedisServer } from './vitest-redis.js';

const started: RedisServer[] = [];
async function start(options?: Parameters<typeof startRedisServer>[0]): Promise<RedisServer> {
  const server = await startRedisServer(options);
  started.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

async function ask(server: RedisServer, ...commands: string[][]): Promise<string> {
  const connection = await RawConnection.open(server);
  try {
    return (await connection.request(commands)).toString('latin1');
  } finally {
    connection.close();
  }
}

describe('startRedisServer', () => {
  it('starts a standalone server in a temp dir with the kit config', async () => {
    const server = await start();
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(isProcessAlive(server.pid)).toBe(true);
    expect(existsSync(server.dir)).toBe(true);
    expect(await ask(server, ['PING'])).toBe('+PONG\r\n');
    const config = await ask(
      server,
      ['CONFIG', 'GET', 'save'],
      ['CONFIG', 'GET', 'appendonly'],
      ['CONFIG', 'GET', 'unixsocket'],
      ['DEBUG', 'PROTOCOL', 'true'],
    );
    expect(config).toBe(
      '*2\r\n$4\r\nsave\r\n$0\r\n\r\n*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n' +
        '*2\r\n$10\r\nunixsocket\r\n$0\r\n\r\n:1\r\n',
    );
  });

  it('frees the port, ends the process and removes the dir on stop, and stops only once', async () => {
    const server = await start();
    const { port, pid, dir } = server;
    expect(await isPortFree(port)).toBe(false);
    await server.stop();
    await server.stop();
    expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(await isPortFree(port)).toBe(true);
  });

  it('gives parallel servers distinct ports', async () => {
    const servers = await Promise.all([start(), start(), start()]);
    expect(new Set(servers.map((server) => server.port)).size).toBe(3);
    for (const server of servers) expect(await ask(server, ['PING'])).toBe('+PONG\r\n');
  });

  it('passes extra arguments and config lines', async () => {
    const server = await start({ args: ['--maxmemory', '10mb'], configLines: ['hz 20'] });
    expect(await ask(server, ['CONFIG', 'GET', 'maxmemory'], ['CONFIG', 'GET', 'hz'])).toBe(
      '*2\r\n$9\r\nmaxmemory\r\n$8\r\n10485760\r\n*2\r\n$2\r\nhz\r\n$2\r\n20\r\n',
    );
  });

  it('restarts on the same port with a new process and empty data', async () => {
    const server = await start();
    const { port, pid } = server;
    expect(await ask(server, ['SET', 'k', 'v'])).toBe('+OK\r\n');
    await server.restart();
    expect(server.port).toBe(port);
    expect(server.pid).not.toBe(pid);
    expect(isProcessAlive(pid)).toBe(false);
    expect(await ask(server, ['GET', 'k'])).toBe('$-1\r\n');
  });

  it('kills with a signal and reports the exit', async () => {
    const server = await start();
    server.kill('SIGKILL');
    expect(await server.waitForExit()).toEqual({ code: null, signal: 'SIGKILL' });
    await server.restart();
    expect(await ask(server, ['PING'])).toBe('+PONG\r\n');
  });

  it('does not take another process answering on its port for itself', async () => {
    const server = await start({ readyTimeoutMs: 600 });
    server.kill('SIGKILL');
    await server.waitForExit();
    // An impostor that answers PONG to anything takes the port before the restart.
    const impostor = net.createServer((socket) => socket.on('data', () => socket.write('+PONG\r\n')));
    await new Promise<void>((resolve) => impostor.listen({ host: '127.0.0.1', port: server.port }, resolve));
    try {
      await expect(server.restart()).rejects.toThrow(/stayed taken[\s\S]*Address already in use/);
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  });

  it('stops a server frozen with SIGSTOP', async () => {
    const server = await start();
    server.kill('SIGSTOP');
    await server.stop();
    expect(isProcessAlive(server.pid)).toBe(false);
  });

  it('kills every live server synchronously (what the exit hook runs)', async () => {
    const server = await start();
    const before = liveServerCount();
    expect(before).toBeGreaterThan(0);
    killAllServersSync();
    expect(liveServerCount()).toBe(0);
    expect(await server.waitForExit()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(existsSync(server.dir)).toBe(false);
  });

  it('fails with the server log when redis-server rejects its config', async () => {
    const failure = startRedisServer({ args: ['--no-such-option', 'x'] });
    await expect(failure).rejects.toThrow(/exited during start[\s\S]*no-such-option/);
  });
});

describe('ACL users', () => {
  it('creates users with passwords and rules', async () => {
    const server = await start({
      aclUsers: [
        { name: 'alice', password: 'secret word' },
        { name: 'reader', password: 'r', rules: ['~*', '+get', '+auth'] },
      ],
    });
    const replies = await ask(
      server,
      ['AUTH', 'alice', 'wrong'],
      ['AUTH', 'alice', 'secret word'],
      ['ACL', 'WHOAMI'],
      ['AUTH', 'reader', 'r'],
      ['GET', 'k'],
      ['SET', 'k', 'v'],
    );
    expect(replies).toMatch(
      /^-WRONGPASS [^\r]*\r\n\+OK\r\n\$5\r\nalice\r\n\+OK\r\n\$-1\r\n-NOPERM [^\r]*'set'[^\r]*\r\n$/,
    );
  });

  it('can protect the default user; readiness still works', async () => {
    const server = await start({ aclUsers: [{ name: 'default', password: 'pw' }] });
    expect(await ask(server, ['PING'], ['AUTH', 'pw'], ['PING'])).toMatch(
      /^-NOAUTH [^\r]*\r\n\+OK\r\n\+PONG\r\n$/,
    );
  });
});

describe('TLS', () => {
  it('serves TLS only, with the kit certificate at absolute paths', async () => {
    const server = await start({ tls: true });
    expect(server.url).toBe(`rediss://127.0.0.1:${server.port}`);
    const certificate = server.tls!;
    expect(certificate.certFile.startsWith('/')).toBe(true);
    expect(readFileSync(certificate.certFile, 'utf8')).toBe(certificate.cert);
    const socket = tls.connect({ host: server.host, port: server.port, ca: certificate.ca });
    const reply = await new Promise<string>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('secureConnect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
    });
    socket.destroy();
    expect(reply).toBe('+PONG\r\n');
    expect(await ask(server, ['CONFIG', 'GET', 'port'])).toBe('*2\r\n$4\r\nport\r\n$1\r\n0\r\n');
  });

  it('rejects an untrusted server certificate (it is verified, not skipped)', async () => {
    const server = await start({ tls: true });
    const socket = tls.connect({ host: server.host, port: server.port });
    const error = await new Promise<Error>((resolve) => socket.once('error', resolve));
    socket.destroy();
    expect(error.message).toMatch(/self[- ]signed/i);
  });

  it('can require client certificates', async () => {
    const server = await start({ tls: { authClients: true } });
    const certificate = server.tls!;
    const anonymous = tls.connect({ host: server.host, port: server.port, ca: certificate.ca });
    const outcome = await new Promise<string>((resolve) => {
      anonymous.once('error', (error) => resolve(`error ${error.message}`));
      anonymous.once('close', () => resolve('closed'));
      anonymous.once('secureConnect', () => anonymous.write('*1\r\n$4\r\nPING\r\n'));
      anonymous.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
    });
    anonymous.destroy();
    expect(outcome).not.toBe('+PONG\r\n');
    expect(await ask(server, ['PING'])).toBe('+PONG\r\n');
  });
});

describe('useRedisServer', () => {
  const server = useRedisServer({ args: ['--hz', '15'] });

  it('runs a server for the tests of its scope', async () => {
    expect(await ask(server, ['CONFIG', 'GET', 'hz'])).toBe('*2\r\n$2\r\nhz\r\n$2\r\n15\r\n');
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
  });
});
