// validateSentinelOptions (API.md "Sentinel"): what it resolves, and that each invalid option is
// a RespireConfigurationError naming it under `sentinel.`.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError } from '../../src/errors.js';
import { DEFAULT_SENTINEL_PORT, validateSentinelOptions } from '../../src/sentinel/index.js';

function optionOf(value: unknown): string | undefined {
  try {
    validateSentinelOptions(value);
  } catch (error) {
    expect(error).toBeInstanceOf(RespireConfigurationError);
    return (error as RespireConfigurationError).option;
  }
  return undefined;
}

describe('validateSentinelOptions', () => {
  it('resolves endpoints as strings or objects, 26379 when no port is given', () => {
    expect(
      validateSentinelOptions({
        serviceName: 'mymaster',
        endpoints: ['10.0.0.1:5000', '10.0.0.2', { host: '10.0.0.3' }, { host: '::1', port: 26380 }, '[::1]'],
        username: 'watcher',
        password: 'pw',
        tls: true,
      }),
    ).toEqual({
      serviceName: 'mymaster',
      endpoints: [
        { host: '10.0.0.1', port: 5000 },
        { host: '10.0.0.2', port: DEFAULT_SENTINEL_PORT },
        { host: '10.0.0.3', port: DEFAULT_SENTINEL_PORT },
        { host: '::1', port: 26380 },
        { host: '::1', port: DEFAULT_SENTINEL_PORT },
      ],
      username: 'watcher',
      password: 'pw',
      tls: true,
    });
  });

  it.each([
    [null, 'sentinel'],
    ['mymaster', 'sentinel'],
    [{ endpoints: ['h:1'] }, 'sentinel.serviceName'],
    [{ serviceName: '', endpoints: ['h:1'] }, 'sentinel.serviceName'],
    [{ serviceName: 'my master', endpoints: ['h:1'] }, 'sentinel.serviceName'],
    [{ serviceName: 'm' }, 'sentinel.endpoints'],
    [{ serviceName: 'm', endpoints: [] }, 'sentinel.endpoints'],
    [{ serviceName: 'm', endpoints: 'h:1' }, 'sentinel.endpoints'],
    [{ serviceName: 'm', endpoints: ['h:1', 'h:0'] }, 'sentinel.endpoints[1]'],
    [{ serviceName: 'm', endpoints: ['h:1', 'h:1'] }, 'sentinel.endpoints[1]'],
    [{ serviceName: 'm', endpoints: ['redis://h:1'] }, 'sentinel.endpoints[0]'],
    [{ serviceName: 'm', endpoints: [{ host: 'h', prot: 1 }] }, 'sentinel.endpoints[0].prot'],
    [{ serviceName: 'm', endpoints: ['h:1'], username: 'u' }, 'sentinel.password'],
    [{ serviceName: 'm', endpoints: ['h:1'], password: 1 }, 'sentinel.password'],
    [{ serviceName: 'm', endpoints: ['h:1'], username: 1, password: 'p' }, 'sentinel.username'],
    [{ serviceName: 'm', endpoints: ['h:1'], tls: 'yes' }, 'sentinel.tls'],
    [{ serviceName: 'm', endpoints: ['h:1'], serviceNmae: 'x' }, 'sentinel.serviceNmae'],
  ])('refuses %j naming %s', (value, option) => {
    expect(optionOf(value)).toBe(option);
  });

  it('refuses more sentinels than it keeps', () => {
    const endpoints = Array.from({ length: 65 }, (_, i) => `h:${i + 1}`);
    expect(optionOf({ serviceName: 'm', endpoints })).toBe('sentinel.endpoints');
  });
});
