// Regression (issue 10 #5, "Secrets in errors"): a RespireConfigurationError echoed the rejected
// option verbatim, in its message, its `value`, its JSON and its stack, so a URL endpoint with a
// password, a non-string password or a credential inside an object ended up in logs. Every
// configuration below carries a secret and is refused; no trace of the secret may remain anywhere
// in the error (deeply: `value`, `cause`, Buffers included).
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/breaker/index.js';
import { resolveOptions } from '../../src/client/options.js';
import { RespireClient, RespireConfigurationError, type RespireOptions } from '../../src/index.js';
import { validateSentinelOptions } from '../../src/sentinel/options.js';

const SECRET = 'hunter2-S3cr3t';
/** A password given as a number by mistake: the digits are the secret. */
const NUMERIC_SECRET = 31415926535;
const ENCODED = encodeURIComponent(`${SECRET}/@:`);

/** Options whose only fault (or one of whose faults) carries a secret. */
const CASES: [label: string, options: unknown][] = [
  ['the options as a URL string', `redis://app:${SECRET}@127.0.0.1:6379`],
  // URLs are accepted now (issue 17): each of these has a fault of its own.
  ['a redis:// URL endpoint, bad database', { endpoints: [`redis://app:${SECRET}@127.0.0.1:6379/x`] }],
  ['a rediss:// URL endpoint, password only, a query', { endpoints: [`rediss://:${SECRET}@127.0.0.1?a=1`] }],
  [
    'a URL endpoint with an encoded password, bad port',
    { endpoints: [`redis://app:${ENCODED}@127.0.0.1:99999`] },
  ],
  ['a url of another scheme', { url: `http://app:${SECRET}@127.0.0.1:6379` }],
  // Refused because other clients read options from the query (ioredis: `?password=`); the
  // refusal echoed the URL, query and all.
  ['a url with the password in its query', { url: `redis://127.0.0.1:6379/0?password=${SECRET}` }],
  [
    'an endpoint URL with a query after user info',
    { endpoints: [`redis://app@127.0.0.1?password=${SECRET}`] },
  ],
  ['a URL object endpoint with a query', { endpoints: [new URL(`redis://127.0.0.1?password=${SECRET}`)] }],
  ['a url with a secret in its fragment', { url: `rediss://127.0.0.1#${SECRET}` }],
  ['a url beside a different password', { url: `redis://:${SECRET}@127.0.0.1`, password: `${SECRET}-2` }],
  ['a password beside a url with another', { url: 'redis://:other@127.0.0.1', password: SECRET }],
  ['a url with a database in Cluster', { url: `redis://:${SECRET}@127.0.0.1/2`, useCluster: true }],
  ['a URL endpoint with an unencoded @ and /', { endpoints: [`redis://app:${SECRET}/x@y@127.0.0.1`] }],
  ['credentials before host:port', { endpoints: [`:${SECRET}@127.0.0.1:6379`] }],
  ['a URL object endpoint', { endpoints: [new URL(`redis://app:${SECRET}@127.0.0.1:6379`)] }],
  ['endpoints as one URL string', { endpoints: `redis://app:${SECRET}@127.0.0.1:6379` }],
  ['a URL among two endpoints', { endpoints: ['127.0.0.1:6379', `redis://app:${SECRET}@127.0.0.1:7000`] }],
  ['a password in an endpoint object', { endpoints: [{ host: '127.0.0.1', port: 6379, password: SECRET }] }],
  [
    'a password in a bad endpoint object',
    { endpoints: [{ host: '127.0.0.1', port: 'x', password: SECRET }] },
  ],
  ['credentials in an endpoint host', { endpoints: [{ host: `app:${SECRET}@127.0.0.1`, port: 6379 }] }],
  ['a numeric password', { endpoints: ['127.0.0.1:6379'], password: NUMERIC_SECRET }],
  ['a Buffer password', { endpoints: ['127.0.0.1:6379'], password: Buffer.from(SECRET) }],
  ['a password in an array', { endpoints: ['127.0.0.1:6379'], password: [SECRET] }],
  ['a password in an object', { endpoints: ['127.0.0.1:6379'], password: { value: SECRET } }],
  ['a numeric username', { endpoints: ['127.0.0.1:6379'], username: NUMERIC_SECRET, password: SECRET }],
  ['a username without password', { endpoints: ['127.0.0.1:6379'], username: SECRET }],
  ['a url option', { endpoints: ['127.0.0.1:6379'], url: `redis://app:${SECRET}@127.0.0.1:6379` }],
  [
    'sentinel credentials with a bad endpoint',
    { sentinel: { serviceName: 'main', endpoints: ['127.0.0.1:x'], password: SECRET } },
  ],
  [
    'a non-string sentinel password',
    { sentinel: { serviceName: 'main', endpoints: ['127.0.0.1:26379'], password: [SECRET] } },
  ],
  [
    'sentinel URL endpoints',
    { sentinel: { serviceName: 'main', endpoints: [`redis://:${SECRET}@h:26379`] } },
  ],
  ['sentinel as a URL', { endpoints: ['127.0.0.1:6379'], sentinel: `redis://:${SECRET}@h:26379` }],
  ['cluster seeds as URLs with a database', { endpoints: [`redis://:${SECRET}@h:7000/1`], useCluster: true }],
  ['cluster options', { endpoints: ['127.0.0.1:7000'], useCluster: true, cluster: { password: SECRET } }],
  [
    'replica endpoints as URLs',
    { endpoints: ['127.0.0.1:6379'], replicaEndpoints: [`redis://:${SECRET}@h`] },
  ],
  [
    'replica endpoints as URLs with a circuit breaker',
    { endpoints: ['127.0.0.1:6379'], replicaEndpoints: [`redis://:${SECRET}@h`], circuitBreaker: {} },
  ],
  [
    'tls as an array of secrets',
    { endpoints: ['127.0.0.1:6379'], tls: [{ key: SECRET, passphrase: SECRET }] },
  ],
  [
    'tls secrets next to another fault',
    {
      endpoints: ['127.0.0.1:6379'],
      tls: { key: SECRET, passphrase: SECRET, pfx: Buffer.from(SECRET) },
      connectTimeout: -1,
    },
  ],
  ['a misspelt password option', { endpoints: ['127.0.0.1:6379'], passwrod: SECRET }],
  ['a password option in the wrong case', { endpoints: ['127.0.0.1:6379'], Password: SECRET }],
  [
    'a secret in an unknown circuitBreaker option',
    { endpoints: ['127.0.0.1:6379'], circuitBreaker: { token: SECRET } },
  ],
  [
    'a secret in an unknown retry option',
    { endpoints: ['127.0.0.1:6379'], retry: { maxAttempts: 2, auth: SECRET } },
  ],
  [
    'a secret in an unknown reconnect option',
    { endpoints: ['127.0.0.1:6379'], reconnect: { secret: SECRET } },
  ],
  [
    'a client-side cache option',
    { endpoints: ['127.0.0.1:6379'], clientSideCache: { maxEntries: 1, key: SECRET } },
  ],
];

/** Where `secret` (text, or its bytes in a Buffer) occurs in `value`, searched deeply. */
function tracesOf(value: unknown, path: string, seen = new Set<unknown>()): string[] {
  const needles = [SECRET, String(NUMERIC_SECRET), ENCODED];
  if (typeof value === 'string') return needles.some((n) => value.includes(n)) ? [path] : [];
  if (typeof value === 'number' || typeof value === 'bigint') return tracesOf(String(value), path, seen);
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  if (value instanceof Uint8Array) {
    return needles.some((n) => Buffer.from(value).includes(n)) ? [path] : [];
  }
  if (value instanceof URL) return tracesOf(decodeURIComponent(value.href), path, seen);
  const found: string[] = [];
  for (const key of Object.getOwnPropertyNames(value)) {
    found.push(...tracesOf((value as Record<string, unknown>)[key], `${path}.${key}`, seen));
  }
  return found;
}

function expectNoSecret(error: RespireConfigurationError): void {
  const json = JSON.stringify(error, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  const text = `${error.message}\n${error.stack}\n${json}\n${inspect(error, { depth: null, showHidden: true })}`;
  expect(tracesOf(text, 'text')).toEqual([]);
  expect(tracesOf(error, 'error')).toEqual([]);
}

describe('configuration errors never echo credentials', () => {
  it.each(CASES)('%s', (_label, options) => {
    let thrown: unknown;
    try {
      // What connect() does before any socket opens: the options, then the mode's own (Sentinel).
      const resolved = resolveOptions(options as RespireOptions);
      if (resolved.mode === 'sentinel') validateSentinelOptions(resolved.sentinel);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RespireConfigurationError);
    expectNoSecret(thrown as RespireConfigurationError);
  });

  it('through connect, and for the standalone breaker', async () => {
    const rejection = await RespireClient.connect({
      endpoints: [`redis://app:${SECRET}@127.0.0.1:6379/x`],
    } as RespireOptions).catch((error: unknown) => error);
    expect(rejection).toBeInstanceOf(RespireConfigurationError);
    expectNoSecret(rejection as RespireConfigurationError);

    let thrown: unknown;
    try {
      new CircuitBreaker({ apiKey: SECRET } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RespireConfigurationError);
    expectNoSecret(thrown as RespireConfigurationError);
  });

  it('still says what was wrong with the redacted value', () => {
    let thrown: unknown;
    try {
      resolveOptions({ endpoints: [`redis://app:${SECRET}@db.internal:6379/x`] });
    } catch (error) {
      thrown = error;
    }
    const error = thrown as RespireConfigurationError;
    expect(error.option).toBe('endpoints[0]');
    // The host, port and scheme stay, so the mistake can be found; only the user info goes.
    expect(error.message).toContain('redis://[redacted]@db.internal:6379/x');
    expect(error.value).toBe('redis://[redacted]@db.internal:6379/x');
  });
});
