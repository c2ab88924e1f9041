// The configuration error connect() would throw for `options` before any socket opens: the
// options, then the mode's own (Sentinel). Fails the test when the options are accepted.
import { expect } from 'vitest';
import { resolveOptions } from '../../src/client/options.js';
import { RespireConfigurationError, type RespireOptions } from '../../src/index.js';
import { validateSentinelOptions } from '../../src/sentinel/options.js';

export function configRefusal(options: unknown): RespireConfigurationError {
  try {
    const resolved = resolveOptions(options as RespireOptions);
    if (resolved.mode === 'sentinel') validateSentinelOptions(resolved.sentinel);
  } catch (error) {
    expect(error).toBeInstanceOf(RespireConfigurationError);
    return error as RespireConfigurationError;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}
