// Regression (issue 15 break attempt, wt-break15): `SharedCircuitRegistry.attach` on the buffer of
// a registry made by another version of respire (its layout version differs: two copies installed,
// one per thread's bundle) was refused as "an object ... allowed: the SharedArrayBuffer of a
// SharedCircuitRegistry", which reads as if the buffer were not a registry's at all and sends the
// reader looking for a wrong workerData field. The error now names both layout versions and what
// to do. (No client is involved: attach is the whole path, so no redis-server.)
import { describe, expect, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { H_VERSION, LAYOUT_VERSION } from '../../src/breaker/shared/layout.js';
import { RespireConfigurationError } from '../../src/index.js';

function attachError(buffer: SharedArrayBuffer): RespireConfigurationError {
  try {
    SharedCircuitRegistry.attach(buffer);
  } catch (error) {
    expect(error).toBeInstanceOf(RespireConfigurationError);
    return error as RespireConfigurationError;
  }
  throw new Error('attach() accepted the buffer');
}

describe('attach() on a registry buffer of another layout version', () => {
  for (const version of [LAYOUT_VERSION - 1, LAYOUT_VERSION + 1]) {
    it(`names layout version ${version} and this one's`, () => {
      const { buffer } = new SharedCircuitRegistry({ maxEndpoints: 2 });
      new Int32Array(buffer)[H_VERSION] = version;
      const error = attachError(buffer);
      expect(error.option).toBe('buffer');
      expect(error.message).toContain(`layout version ${version}`);
      expect(error.message).toContain(`this one reads layout version ${LAYOUT_VERSION}`);
      expect(error.message).toContain('another version of respire');
    });
  }

  it('still calls a buffer without the magic not a registry buffer', () => {
    expect(attachError(new SharedArrayBuffer(4096)).message).toContain(
      "the SharedArrayBuffer of a SharedCircuitRegistry (its 'buffer')",
    );
  });
});
