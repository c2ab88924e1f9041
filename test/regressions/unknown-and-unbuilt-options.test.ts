// Regression (issue 10, "Options users mistype or that are not built"): an unknown option name
// (`comandTimeout`) was silently ignored, so the default applied, and options of features not
// built yet were accepted: `useCluster: true` quietly gave a standalone client. Both must be a
// RespireConfigurationError naming the option, before any socket is opened.
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/breaker/index.js';
import { resolveOptions } from '../../src/client/options.js';
import { RespireConfigurationError, type RespireOptions } from '../../src/index.js';

const BASE = { endpoints: ['127.0.0.1:6379'] };

function rejection(options: unknown): RespireConfigurationError {
  try {
    resolveOptions(options as RespireOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(RespireConfigurationError);
    return error as RespireConfigurationError;
  }
  throw new Error(`accepted ${Object.keys(options as object).join(', ')}`);
}

describe('unknown option names', () => {
  const misspelt: [options: unknown, option: string, suggestion: string | undefined][] = [
    [{ ...BASE, comandTimeout: 100 }, 'comandTimeout', 'commandTimeout'],
    [{ ...BASE, CommandTimeout: 100 }, 'CommandTimeout', 'commandTimeout'],
    [{ endpoint: ['127.0.0.1:6379'] }, 'endpoint', 'endpoints'],
    [{ ...BASE, pasword: 'x' }, 'pasword', 'password'],
    [{ ...BASE, timeout: 100 }, 'timeout', undefined],
    [{ ...BASE, circuitBreaker: { openDuraton: 5 } }, 'circuitBreaker.openDuraton', 'openDuration'],
    [{ ...BASE, circuitBreaker: { enabled: true } }, 'circuitBreaker.enabled', undefined],
    [{ ...BASE, retry: { maxAttempt: 3 } }, 'retry.maxAttempt', 'maxAttempts'],
    [{ ...BASE, reconnect: { maxDelayMs: 100 } }, 'reconnect.maxDelayMs', 'maxDelay'],
    [{ endpoints: [{ host: '127.0.0.1', prot: 6380 }] }, 'endpoints[0].prot', 'port'],
  ];
  it.each(misspelt)('%o names %s', (options, option, suggestion) => {
    const error = rejection(options);
    expect(error.option).toBe(option);
    expect(error.message).toContain(`unknown option ${option}`);
    if (suggestion === undefined) expect(error.message).not.toContain('did you mean');
    else expect(error.message).toContain(`did you mean ${suggestion}?`);
  });

  it('an unknown name is refused even when its value is undefined', () => {
    expect(rejection({ ...BASE, comandTimeout: undefined }).option).toBe('comandTimeout');
  });

  it('the standalone breaker refuses unknown names too', () => {
    expect(() => new CircuitBreaker({ halfOpenProbes: 2 } as never)).toThrow(/unknown option halfOpenProbes/);
  });

  it('tls stays open: it is node’s tls.ConnectionOptions', () => {
    expect(resolveOptions({ ...BASE, tls: { rejectUnauthorized: false, servername: 'x' } }).tls).toEqual({
      rejectUnauthorized: false,
      servername: 'x',
    });
  });
});

describe('options of features not built yet', () => {
  const unbuilt: [options: unknown, option: string][] = [
    [{ url: 'redis://127.0.0.1:6379' }, 'url'],
    [{ endpoints: ['redis://127.0.0.1:6379'] }, 'endpoints[0]'],
    [{ endpoints: [{ path: '/tmp/redis.sock' }] }, 'endpoints[0].path'],
  ];
  it.each(unbuilt)('%o is refused as not supported yet', (options, option) => {
    const error = rejection(options);
    expect(error.option).toBe(option);
    expect(error.message).toContain('not supported yet');
  });

  it('Cluster options without useCluster are refused, not ignored (Cluster mode is built now)', () => {
    for (const [options, option] of [
      [{ ...BASE, cluster: { refreshInterval: 0 } }, 'cluster'],
      [{ ...BASE, readFrom: 'replica' }, 'readFrom'],
      [{ ...BASE, readFrom: 'replicaPreferred' }, 'readFrom'],
      [{ ...BASE, useCluster: 'yes' }, 'useCluster'],
    ] as const) {
      expect(rejection(options).option).toBe(option);
    }
  });

  it('clientSideCache is built now: accepted, and a mistyped field of it refused', () => {
    expect(resolveOptions({ ...BASE, clientSideCache: { maxEntries: 100 } }).clientSideCache).toEqual({
      maxEntries: 100,
      maxBytes: Number.POSITIVE_INFINITY,
      ttlMs: 0,
    });
    expect(rejection({ ...BASE, clientSideCache: { maxEntry: 100 } }).option).toBe(
      'clientSideCache.maxEntry',
    );
  });

  it('replicaEndpoints with circuitBreaker keeps seed 000\'s "Limits" message', () => {
    const error = rejection({ ...BASE, replicaEndpoints: ['127.0.0.1:6380'], circuitBreaker: {} });
    expect(error.option).toBe('replicaEndpoints');
    expect(error.allowed).toBe('not set together with circuitBreaker (seed 000 "Limits")');
  });

  it('the defaults of those features are accepted as no-ops', () => {
    const resolved = resolveOptions({
      ...BASE,
      useCluster: false,
      readFrom: 'primary',
      sentinel: undefined,
      clientSideCache: undefined,
      replicaEndpoints: undefined,
      url: undefined,
    } as RespireOptions);
    expect(resolved.endpoint).toEqual({ host: '127.0.0.1', port: 6379 });
  });
});
