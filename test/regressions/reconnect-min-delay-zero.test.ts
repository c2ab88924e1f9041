// Found by the deterministic simulation (issue 16): `reconnect: { minDelay: 0 }` kept every delay
// ceiling at 0 (0 × 2^n), so a dead node was reconnected to in a busy loop for as long as it was
// down. A minDelay of 0 now means only that the first retry is immediate: the ceilings after it
// double from 1 ms up to maxDelay, as the option's exponential backoff promises.
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/client/options.js';

/** The delays the resolved default policy gives attempts 1..n, with jitter at its ceiling. */
function delays(reconnect: { minDelay: number; maxDelay: number }, n: number): (number | false)[] {
  const resolved = resolveOptions({
    endpoints: ['127.0.0.1:6379'],
    reconnect,
    random: { random: () => 0.999_999 },
  });
  if (resolved.reconnect === false) throw new Error('reconnect is off');
  const policy = resolved.reconnect;
  return Array.from({ length: n }, (_, i) => policy(i + 1, new Error('refused')));
}

describe('reconnect minDelay 0', () => {
  it('retries at once first, then backs off up to maxDelay', () => {
    expect(delays({ minDelay: 0, maxDelay: 100 }, 9)).toEqual([0, 2, 4, 8, 16, 32, 64, 100, 100]);
  });

  it('leaves other minDelays as they were', () => {
    expect(delays({ minDelay: 10, maxDelay: 100 }, 5)).toEqual([10, 20, 40, 80, 100]);
  });

  it('keeps a maxDelay of 0 the caller asked for', () => {
    expect(delays({ minDelay: 0, maxDelay: 0 }, 3)).toEqual([0, 0, 0]);
  });
});
