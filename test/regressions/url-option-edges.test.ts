// Regression (issue 17, "Connecting the way users already do", adversarial review): URLs that
// the parser let through or refused under the wrong name.
// - `url: 'localhost:6380'` (or any non-URL text) was taken as a `host:port` endpoint, and a
//   `url` of `''` was refused as `endpoints[0]`: API.md gives `url` as a redis:// URL only.
// - Port 0 passes WHATWG URL parsing; the endpoint check then refused it as `endpoints[0]` and
//   "an object", though the user wrote `url`.
// - A non-special scheme keeps `%` in its host (`redis://ho%20st`): the client tried to resolve
//   `ho%20st` instead of refusing it.
// - A URL with surrounding blanks (an env file's `REDIS_URL= redis://…`), which `new URL` trims,
//   was refused as an endpoint with a message saying URLs belong in endpoints; where a URL is
//   refused (a sentinel, a replica), such a URL's query, password included, was echoed unredacted.
// - A query was refused without saying which parameter or what to use instead; a URL without a
//   host (`redis:///run/redis.sock`) was refused for having a query or fragment, which it has not.
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/client/options.js';
import type { RespireConfigurationError } from '../../src/index.js';
import { configRefusal } from '../client/config-refusal.js';

const SECRET = 'Qx7-secret';

/** The refusal, which must not show the secret either. */
function refusal(options: unknown): RespireConfigurationError {
  const refused = configRefusal(options);
  expect(`${refused.message} ${String(refused.value)}`).not.toContain(SECRET);
  return refused;
}

describe('the url option takes a URL only', () => {
  it.each(['localhost:6380', 'garbage', '', `:${SECRET}@h:6379`])('refuses %j, naming url', (url) => {
    const error = refusal({ url });
    expect(error.option).toBe('url');
    expect(error.message).toContain('redis://');
  });
});

describe('what a URL may hold', () => {
  it.each([
    ['url', { url: `redis://:${SECRET}@h:0` }],
    ['endpoints[0]', { endpoints: [`redis://:${SECRET}@h:0`] }],
  ])('refuses port 0, naming %s', (option, options) => {
    const error = refusal(options);
    expect(error.option).toBe(option);
    expect(error.message).toContain('port');
  });

  it.each(['ho%20st', 'h%40x'])('refuses a percent-encoded host (%s)', (host) => {
    const error = refusal({ url: `redis://:${SECRET}@${host}:6379` });
    expect(error.option).toBe('url');
    expect(error.message).toContain('host');
  });

  it('accepts blanks around a URL, as new URL does', () => {
    for (const given of [` redis://:${SECRET}@h:6380/2\n`, `\tredis://:${SECRET}@h:6380/2 `]) {
      const viaUrl = resolveOptions({ url: given });
      const viaEndpoints = resolveOptions({ endpoints: [given] });
      for (const resolved of [viaUrl, viaEndpoints]) {
        expect(resolved.endpoint).toEqual({ host: 'h', port: 6380 });
        expect([resolved.password, resolved.database]).toEqual([SECRET, 2]);
      }
    }
  });

  it.each([
    [
      'sentinel.endpoints[0]',
      { sentinel: { serviceName: 's', endpoints: [` redis://h?password=${SECRET}`] } },
    ],
    ['replicaEndpoints[0]', { endpoints: ['h:1'], replicaEndpoints: [`\nredis://h#${SECRET}`] }],
  ])('a refused URL with a leading blank hides its query (%s)', (option, options) => {
    expect(refusal(options).option).toBe(option);
  });

  it('a query names each parameter (never its value) and what to use instead', () => {
    const error = refusal({ url: `redis://h:6379?db=2&password=${SECRET}&tls=true&family=6` });
    expect(error.option).toBe('url');
    expect(error.message).toMatch(/\bdb\b.*\/database|database.*\bdb\b/);
    expect(error.message).toContain('password');
    expect(error.message).toContain('rediss://');
    expect(error.message).toContain('family');
  });

  it('a URL without a host says so, and points a socket path at { path }', () => {
    const error = refusal({ url: 'redis:///run/redis.sock' });
    expect(error.message).not.toContain('query');
    expect(error.message).toContain('{ path }');
  });
});
