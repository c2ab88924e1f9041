// The connection handshake against real servers (PROTOCOL.md §1.4): RESP3 by default and RESP2 on
// request or fallback, ACL and password auth, client name, database, TLS, and connectTimeout.
import { afterEach, describe, expect, it } from 'vitest';
import {
  RespireAuthenticationError,
  RespireClient,
  RespireConnectionError,
  type RespireOptions,
  RespireTimeoutError,
} from '../../src/index.js';
import { HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients: RespireClient[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});

async function open(options: RespireOptions): Promise<RespireClient> {
  const client = await RespireClient.connect(options);
  clients.push(client);
  return client;
}

async function failure(options: RespireOptions): Promise<unknown> {
  return RespireClient.connect(options).then(
    (client) => {
      clients.push(client);
      throw new Error('connect resolved');
    },
    (error: unknown) => error,
  );
}

/** The `proto` field of a HELLO reply without arguments, read from a RESP3 map or a RESP2 array. */
function protoOf(hello: unknown): unknown {
  if (hello instanceof Map) return hello.get('proto');
  if (Array.isArray(hello)) return hello[hello.indexOf('proto') + 1];
  throw new Error(`unexpected HELLO reply ${String(hello)}`);
}

describe('handshake against redis-server 7.0', () => {
  const server = useRedisServer({ aclUsers: [{ name: 'app', password: 'app-secret' }] });
  const endpoint = () => ({ host: server.host, port: server.port });

  it('speaks RESP3 by default', async () => {
    const redis = await open({ endpoints: [endpoint()] });
    const hello = await redis.send(['HELLO']);
    expect(hello).toBeInstanceOf(Map);
    expect(protoOf(hello)).toBe(3);
    expect(await redis.send(['CLIENT', 'INFO'])).toMatch(/\bresp=3\b/);
    // A RESP3-only reply shape: HGETALL answers a map.
    await redis.send(['HSET', 'h3', 'f', 'v']);
    expect(await redis.send(['HGETALL', 'h3'])).toEqual(new Map([['f', 'v']]));
  });

  it('speaks RESP2 with protocol: 2', async () => {
    const redis = await open({ endpoints: [endpoint()], protocol: 2 });
    const hello = await redis.send(['HELLO']);
    expect(Array.isArray(hello)).toBe(true);
    expect(protoOf(hello)).toBe(2);
    expect(await redis.send(['CLIENT', 'INFO'])).toMatch(/\bresp=2\b/);
    await redis.send(['HSET', 'h2', 'f', 'v']);
    expect(await redis.send(['HGETALL', 'h2'])).toEqual(['f', 'v']);
  });

  it.each([3, 2] as const)('authenticates an ACL user (protocol %i)', async (protocol) => {
    const redis = await open({ endpoints: [endpoint()], protocol, username: 'app', password: 'app-secret' });
    expect(await redis.send(['ACL', 'WHOAMI'])).toBe('app');
    expect(await redis.set(`acl:${protocol}`, 'ok')).toBe('OK');
  });

  it.each([3, 2] as const)(
    'rejects a wrong password with RespireAuthenticationError (protocol %i)',
    async (protocol) => {
      const error = await failure({
        endpoints: [endpoint()],
        protocol,
        username: 'app',
        password: 'wrong',
        reconnect: false,
      });
      expect(error).toBeInstanceOf(RespireAuthenticationError);
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect(error).toMatchObject({ written: false, endpoint: endpoint() });
      expect((error as Error).message).toContain('WRONGPASS');
    },
  );

  it('rejects an unknown user with RespireAuthenticationError', async () => {
    const error = await failure({ endpoints: [endpoint()], username: 'nobody', password: 'x' });
    expect(error).toBeInstanceOf(RespireAuthenticationError);
  });

  it.each([3, 2] as const)('sets the client name (protocol %i)', async (protocol) => {
    const name = `respire-test-${protocol}`;
    const redis = await open({ endpoints: [endpoint()], protocol, clientName: name });
    expect(await redis.send(['CLIENT', 'GETNAME'])).toBe(name);
    const list = String(await redis.send(['CLIENT', 'LIST']));
    expect(list).toContain(` name=${name} `);
  });

  it.each([3, 2] as const)('selects the database (protocol %i)', async (protocol) => {
    const key = `db-key-${protocol}`;
    const inDb3 = await open({ endpoints: [endpoint()], protocol, database: 3 });
    const inDb0 = await open({ endpoints: [endpoint()], protocol });
    expect(await inDb3.set(key, 'three')).toBe('OK');
    expect(await inDb3.get(key)).toBe('three');
    expect(await inDb0.get(key)).toBeNull();
    expect(await inDb3.send(['CLIENT', 'INFO'])).toMatch(/\bdb=3\b/);
  });

  it('rejects a database the server does not have', async () => {
    const error = await failure({ endpoints: [endpoint()], database: 99, reconnect: false });
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).not.toBeInstanceOf(RespireAuthenticationError);
    expect((error as Error).message).toMatch(/DB index is out of range/);
  });

  it('times out a black-holed handshake with RespireTimeoutError phase connect', async () => {
    const proxy = await startFaultProxy({ target: endpoint(), mode: 'blackhole' });
    try {
      const started = performance.now();
      const error = await failure({
        endpoints: [{ host: proxy.host, port: proxy.port }],
        connectTimeout: 200,
      });
      expect(error).toBeInstanceOf(RespireTimeoutError);
      expect(error).toMatchObject({ phase: 'connect', timeoutMs: 200, written: false });
      // Fails fast: near the 200 ms deadline, far below the 5 s default.
      expect(performance.now() - started).toBeLessThan(3000);
      expect(proxy.connectionsAccepted).toBe(1);
      // The timed-out socket was closed, not left open: once the partition heals, the client's FIN
      // reaches the server and the proxied connection goes away (an open one would stay live).
      await proxy.setMode('pass');
      await proxy.waitForConnections(0);
    } finally {
      await proxy.stop();
    }
  });

  it('fails with RespireConnectionError when nothing listens', async () => {
    const proxy = await startFaultProxy({ target: endpoint(), mode: 'refuse' });
    const port = proxy.port;
    await proxy.stop();
    const error = await failure({ endpoints: [{ host: '127.0.0.1', port }], connectTimeout: 2000 });
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false, endpoint: { host: '127.0.0.1', port } });
  });
});

describe('handshake with requirepass', () => {
  const server = useRedisServer({ configLines: ['requirepass "door-key"'] });
  const endpoint = () => ({ host: server.host, port: server.port });

  it.each([3, 2] as const)('authenticates with a password alone (protocol %i)', async (protocol) => {
    const redis = await open({ endpoints: [endpoint()], protocol, password: 'door-key' });
    expect(await redis.send(['ACL', 'WHOAMI'])).toBe('default');
  });

  it.each([3, 2] as const)(
    'missing credentials → RespireAuthenticationError (protocol %i)',
    async (protocol) => {
      const error = await failure({ endpoints: [endpoint()], protocol, reconnect: false });
      expect(error).toBeInstanceOf(RespireAuthenticationError);
      expect((error as Error).message).toContain('NOAUTH');
    },
  );
});

describe('handshake with a server without HELLO', () => {
  // Redis renames the command away, so HELLO answers "unknown command" as a pre-6 server would.
  const server = useRedisServer({
    configLines: ['rename-command HELLO ""'],
    aclUsers: [{ name: 'old', password: 'old-secret' }],
  });

  it('falls back to RESP2 with AUTH and CLIENT SETNAME', async () => {
    const redis = await open({
      endpoints: [{ host: server.host, port: server.port }],
      username: 'old',
      password: 'old-secret',
      clientName: 'legacy',
      database: 2,
    });
    expect(await redis.send(['ACL', 'WHOAMI'])).toBe('old');
    expect(await redis.send(['CLIENT', 'GETNAME'])).toBe('legacy');
    const info = String(await redis.send(['CLIENT', 'INFO']));
    expect(info).toMatch(/\bresp=2\b/);
    expect(info).toMatch(/\bdb=2\b/);
  });

  it('still refuses a wrong password in the fallback', async () => {
    const error = await failure({
      endpoints: [{ host: server.host, port: server.port }],
      username: 'old',
      password: 'nope',
      reconnect: false,
    });
    expect(error).toBeInstanceOf(RespireAuthenticationError);
  });
});

describe('handshake over TLS', () => {
  const server = useRedisServer({ tls: true, aclUsers: [{ name: 'tls-user', password: 'tls-secret' }] });

  it.each([3, 2] as const)('connects with the test CA (protocol %i)', async (protocol) => {
    const redis = await open({
      endpoints: [{ host: server.host, port: server.port }],
      tls: { ca: server.tls!.ca },
      protocol,
      username: 'tls-user',
      password: 'tls-secret',
    });
    expect(await redis.ping()).toBe('PONG');
    expect(await redis.send(['ACL', 'WHOAMI'])).toBe('tls-user');
    const values = await Promise.all(Array.from({ length: 500 }, (_, i) => redis.echo(`tls-${i}`)));
    expect(values).toEqual(Array.from({ length: 500 }, (_, i) => `tls-${i}`));
  });

  it('reconnects over TLS after the connection is cut', async () => {
    const proxy = await startFaultProxy({ target: { host: server.host, port: server.port } });
    try {
      const redis = await open({
        endpoints: [{ host: proxy.host, port: proxy.port }],
        tls: { ca: server.tls!.ca },
        username: 'tls-user',
        password: 'tls-secret',
        reconnect: () => 5,
      });
      expect(await redis.echo('before')).toBe('before');
      await proxy.closeAllConnections();
      await proxy.waitForConnectionsAccepted(2);
      await proxy.waitForConnections(1);
      expect(await redis.echo('after')).toBe('after');
      expect(await redis.send(['ACL', 'WHOAMI'])).toBe('tls-user');
    } finally {
      await proxy.stop();
    }
  });

  it('rejects an untrusted certificate with RespireConnectionError', async () => {
    const error = await failure({
      endpoints: [{ host: server.host, port: server.port }],
      tls: true,
      connectTimeout: 3000,
      reconnect: false,
    });
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).not.toBeInstanceOf(RespireAuthenticationError);
    expect(error).toMatchObject({ written: false });
    expect(String((error as Error).cause)).toMatch(/self[- ]signed|certificate/i);
  });

  it('fails plain TCP against a TLS port with a connection error, not a hang', async () => {
    const error = await failure({
      endpoints: [{ host: server.host, port: server.port }],
      connectTimeout: 1000,
      reconnect: false,
    });
    expect(error).toBeInstanceOf(RespireConnectionError);
  });
});

describe('handshake wire format (fake server)', () => {
  it('sends HELLO 3 with AUTH and SETNAME first, then SELECT, and no user command before', async () => {
    await using fake = await startFakeServer({
      script: [],
      fallback: (args) => {
        const name = args[0]!.toUpperCase();
        if (name === 'HELLO') return HELLO_3_REPLY;
        if (name === 'CLIENT') return "-ERR unknown subcommand 'SETINFO'\r\n";
        if (name === 'SELECT') return '+OK\r\n';
        if (name === 'GET') return '$5\r\nvalue\r\n';
        return '-ERR unexpected\r\n';
      },
    });
    const redis = await open({
      endpoints: [{ host: fake.host, port: fake.port }],
      username: 'u',
      password: 'p',
      clientName: 'named',
      database: 5,
    });
    expect(await redis.get('k')).toBe('value');
    const names = fake.commands.map((args) => args[0]!.toUpperCase());
    expect(fake.commands[0]).toEqual(['HELLO', '3', 'AUTH', 'u', 'p', 'SETNAME', 'named']);
    expect(fake.commands).toContainEqual(['SELECT', '5']);
    // The failed CLIENT SETINFO of a 7.0 server is ignored, and GET comes after every setup command.
    expect(names.at(-1)).toBe('GET');
    expect(names.filter((name) => name === 'GET')).toHaveLength(1);
    expect(fake.failures).toEqual([]);
  });

  it('falls back to AUTH and CLIENT SETNAME in RESP2 when HELLO answers NOPROTO', async () => {
    await using fake = await startFakeServer({
      script: [],
      fallback: (args) => {
        const name = args.slice(0, 2).join(' ').toUpperCase();
        if (name.startsWith('HELLO')) return '-NOPROTO unsupported protocol version\r\n';
        if (name.startsWith('AUTH') || name === 'CLIENT SETNAME') return '+OK\r\n';
        if (name === 'CLIENT SETINFO') return "-ERR unknown subcommand 'SETINFO'\r\n";
        if (name.startsWith('HGETALL')) return '*2\r\n$1\r\nf\r\n$1\r\nv\r\n';
        return '-ERR unexpected\r\n';
      },
    });
    const redis = await open({
      endpoints: [{ host: fake.host, port: fake.port }],
      username: 'u',
      password: 'p',
      clientName: 'named',
    });
    expect(await redis.send(['HGETALL', 'h'])).toEqual(['f', 'v']);
    expect(fake.commands).toContainEqual(['AUTH', 'u', 'p']);
    expect(fake.commands).toContainEqual(['CLIENT', 'SETNAME', 'named']);
  });
});
