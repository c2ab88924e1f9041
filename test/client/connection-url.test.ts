// Connecting the way users already do (issue 17, API.md "RespireOptions"): `redis://` and
// `rediss://` URLs as an endpoint and as `url`, merged with the options they also set, and Unix
// socket paths with the circuit keyed by the path. Parsing is checked on resolveOptions; each way
// of connecting against a real redis-server 7.0.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/client/options.js';
import { RespireCircuitOpenError, RespireClient, type RespireError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { RecordingMeter } from './circuit-kit.js';
import { configRefusal as refusal } from './config-refusal.js';
import { useConnect } from './support.js';

const open = useConnect();

describe('URLs in the options', () => {
  it('an endpoint URL sets the address, credentials and database', () => {
    const resolved = resolveOptions({ endpoints: ['redis://app:pw@127.0.0.1:6420/3'] });
    expect(resolved.endpoint).toEqual({ host: '127.0.0.1', port: 6420 });
    expect([resolved.username, resolved.password, resolved.database, resolved.tls]).toEqual([
      'app',
      'pw',
      3,
      undefined,
    ]);
  });

  it('the url option does the same; defaults fill what the URL leaves out', () => {
    const resolved = resolveOptions({ url: 'redis://db.internal' });
    expect(resolved.endpoint).toEqual({ host: 'db.internal', port: 6379 });
    expect([resolved.username, resolved.password, resolved.database]).toEqual([undefined, undefined, 0]);
  });

  it('a password alone, percent-encoded user info, IPv6 and rediss://', () => {
    const resolved = resolveOptions({ url: `rediss://:${encodeURIComponent('p@ss/:w')}@[::1]:7000/` });
    expect(resolved.endpoint).toEqual({ host: '::1', port: 7000 });
    expect(resolved.password).toBe('p@ss/:w');
    expect(resolved.username).toBeUndefined();
    expect(resolved.tls).toBe(true);
  });

  it('rediss:// keeps a tls object; an option equal to the URL’s is not a conflict', () => {
    const ca = 'CA';
    const resolved = resolveOptions({ url: 'rediss://u:p@h/2', tls: { ca }, username: 'u', database: 2 });
    expect(resolved.tls).toEqual({ ca });
    expect(resolved.database).toBe(2);
  });

  it('Cluster seeds may be URLs, with database 0 at most', () => {
    const resolved = resolveOptions({
      endpoints: ['redis://:pw@10.0.0.1:7000/0', 'redis://:pw@10.0.0.2:7000', '10.0.0.3:7000'],
      useCluster: true,
    });
    expect(resolved.endpoints.map((e) => e.host)).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    expect(resolved.password).toBe('pw');
  });

  const conflicts: [label: string, options: unknown, option: string][] = [
    ['a database option that differs', { url: 'redis://h/1', database: 2 }, 'database'],
    ['a password option that differs', { endpoints: ['redis://:a@h'], password: 'b' }, 'password'],
    ['a username option that differs', { url: 'redis://u:p@h', username: 'v', password: 'p' }, 'username'],
    [
      'two URLs with different passwords',
      { endpoints: ['redis://:a@h:1', 'redis://:b@h:2'], useCluster: true },
      'password',
    ],
    [
      'redis:// beside rediss://',
      { endpoints: ['redis://h:1', 'rediss://h:2'], useCluster: true },
      'endpoints[1]',
    ],
    ['rediss:// with tls: false', { url: 'rediss://h', tls: false }, 'tls'],
    ['a URL database in Cluster', { endpoints: ['redis://h:7000/1'], useCluster: true }, 'endpoints[0]'],
    ['a url database in Cluster', { url: 'redis://h:7000/4', useCluster: true }, 'url'],
    ['url and endpoints together', { url: 'redis://h', endpoints: ['h:6379'] }, 'url'],
    ['url with sentinel', { url: 'redis://h', sentinel: { serviceName: 's', endpoints: ['h'] } }, 'url'],
    ['a user name without a password', { url: 'redis://app@h' }, 'url'],
    ['another scheme', { url: 'http://h:6379' }, 'url'],
    ['a query string', { url: 'redis://h?db=2' }, 'url'],
    ['a database that is not a number', { endpoints: ['redis://h/two'] }, 'endpoints[0]'],
    [
      'a URL among replicaEndpoints',
      { endpoints: ['h:1'], replicaEndpoints: ['redis://h:2'] },
      'replicaEndpoints[0]',
    ],
    [
      'a URL as a sentinel',
      { sentinel: { serviceName: 's', endpoints: ['redis://h'] } },
      'sentinel.endpoints[0]',
    ],
    ['a url that is not a string', { url: 6379 }, 'url'],
  ];
  it.each(conflicts)('refuses %s, naming %s', (_label, options, option) => {
    const error = refusal(options);
    expect(error.option).toBe(option);
  });

  it('a conflict names the options and never shows either value', () => {
    const error = refusal({ url: 'redis://:first-secret@h', password: 'second-secret' });
    expect(error.message).toContain('password');
    expect(error.message).not.toMatch(/first-secret|second-secret/);
    expect(String(error.value)).not.toMatch(/second-secret/);
  });
});

describe('Unix socket endpoints in the options', () => {
  it('{ path } is a standalone endpoint and a replica endpoint', () => {
    const resolved = resolveOptions({ endpoints: [{ path: '/run/redis.sock' }] });
    expect(resolved.endpoint).toEqual({ host: '/run/redis.sock', port: 0, path: '/run/redis.sock' });
    const replicas = resolveOptions({ endpoints: ['h:1'], replicaEndpoints: [{ path: '/r.sock' }] });
    expect(replicas.replicaEndpoints[0]?.path).toBe('/r.sock');
  });

  const refused: [label: string, options: unknown, option: string][] = [
    ['as a Cluster seed', { endpoints: [{ path: '/s' }], useCluster: true }, 'endpoints[0].path'],
    [
      'as a sentinel',
      { sentinel: { serviceName: 's', endpoints: [{ path: '/s' }] } },
      'sentinel.endpoints[0].path',
    ],
    ['empty', { endpoints: [{ path: '' }] }, 'endpoints[0].path'],
    ['beside a port', { endpoints: [{ path: '/s', port: 1 }] }, 'endpoints[0].port'],
  ];
  it.each(refused)('refuses a path %s', (_label, options, option) => {
    expect(refusal(options).option).toBe(option);
  });
});

describe('connecting with a URL', () => {
  const server = useRedisServer({ aclUsers: [{ name: 'app', password: 'p@ss:word/1' }] });

  it('authenticates and selects the database the URL names', async () => {
    const url = `redis://app:${encodeURIComponent('p@ss:word/1')}@${server.host}:${server.port}/5`;
    const redis = await open({ url });
    expect(await redis.send(['ACL', 'WHOAMI'])).toBe('app');
    expect(await redis.send(['CLIENT', 'INFO'])).toMatch(/\bdb=5\b/);
    const viaEndpoints = await open({ endpoints: [url], protocol: 2 });
    expect(await viaEndpoints.send(['CLIENT', 'INFO'])).toMatch(/\bdb=5\b/);
  });
});

describe('connecting with a rediss:// URL', () => {
  const server = useRedisServer({ tls: true });

  it('turns TLS on; the tls option still supplies the CA', async () => {
    const redis = await open({ url: `rediss://localhost:${server.port}`, tls: { ca: server.tls!.ca } });
    expect(await redis.ping()).toBe('PONG');
    // The same server refuses plain text: the connection really is TLS.
    const plain = await RespireClient.connect({
      url: `redis://localhost:${server.port}`,
      connectTimeout: 1000,
      reconnect: false,
    }).then(
      (client) => client.destroy(),
      (error: unknown) => error,
    );
    expect(plain).toBeInstanceOf(Error);
  });
});

describe('connecting over a Unix socket', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'respire-sock-'));
  const socket = path.join(dir, 'redis.sock');
  const server = useRedisServer({ configLines: [`unixsocket ${socket}`, 'unixsocketperm 700'] });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs commands over the socket', async () => {
    const redis = await open({ endpoints: [{ path: socket }] });
    await redis.set('sock', 'yes');
    expect(await redis.get('sock')).toBe('yes');
    // The server sees a Unix socket client: `addr` is the socket path form, not an IP.
    expect(await redis.send(['CLIENT', 'INFO'])).toMatch(/\baddr=\/[^ ]*redis\.sock:0\b/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('metrics name the socket by its path, with no port', async () => {
    const meter = new RecordingMeter();
    const redis = await open({ endpoints: [{ path: socket }], meter });
    await redis.set('plain', 'v');
    await redis.lpush('plain', 'x').catch(() => {});
    const [error] = meter.of('redis.client.errors');
    expect(error?.attributes).toMatchObject({ 'server.address': socket, 'error.type': 'WRONGTYPE' });
    expect(error?.attributes).not.toHaveProperty('server.port');
  });

  it('keys the circuit by the path, and errors name the path', async () => {
    const redis = await open({
      endpoints: [{ path: socket }],
      circuitBreaker: { minimumFailureCount: 2, failureRateThreshold: 0.5, openDuration: 60_000 },
      commandTimeout: 200,
    });
    expect(await redis.ping()).toBe('PONG');
    const circuit = redis.circuitOf({ host: 'ignored', port: 1, path: socket });
    expect(circuit).toBeDefined();
    expect(circuit).toBe(redis.circuit);
    expect(redis.circuitOf({ host: '127.0.0.1', port: server.port })).toBeUndefined();
    // A frozen server: the replies' deadlines pass, the failures trip the socket's circuit.
    server.kill('SIGSTOP');
    try {
      const timeouts = await Promise.allSettled([redis.ping(), redis.ping()]);
      for (const result of timeouts) {
        expect(result.status).toBe('rejected');
        expect(((result as PromiseRejectedResult).reason as RespireError).endpoint?.path).toBe(socket);
      }
      expect(circuit!.state).toBe('open');
      const rejected = await redis.ping().catch((error: unknown) => error);
      expect(rejected).toBeInstanceOf(RespireCircuitOpenError);
      expect((rejected as RespireCircuitOpenError).endpoint?.path).toBe(socket);
      expect((rejected as Error).message).toContain(`circuit of ${socket} is open`);
    } finally {
      server.kill('SIGCONT');
    }
  });
});
