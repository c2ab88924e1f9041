// The in-process `breaker` suite, run quick: every row it promises, each a finite figure (the
// suite throws when a case's breaker does not behave as the case needs).
import { describe, expect, it } from 'vitest';
import { breakerSuite } from '../../bench/suites/breaker.js';

describe('the breaker suite', () => {
  it('reports allocation, ns/op of every hot path and memory per circuit', async () => {
    const rows = await breakerSuite.run({
      quick: true,
      log: () => {},
      redisUrl: () => Promise.reject(new Error('the breaker suite needs no server')),
      redisCluster: () => Promise.reject(new Error('the breaker suite needs no cluster')),
    });
    expect(rows.every((row) => row.suite === 'breaker' && Number.isFinite(row.value) && row.value >= 0)).toBe(
      true,
    );
    const cases = (unit: string) => [
      ...new Set(rows.filter((row) => row.unit === unit).map((row) => row.case)),
    ];
    expect(cases('bytes/op')).toEqual(['closed admit+success allocation']);
    expect(cases('ns/op')).toEqual([
      'closed admit+success',
      'open rejection',
      'failure into full 1024 ring',
      'half-open probe cycle',
    ]);
    expect(cases('bytes')).toEqual(['memory per circuit at 1024 samples (1000 circuits)']);
    expect(rows.find((row) => row.unit === 'bytes')!.value).toBeGreaterThan(0);
  }, 60_000);
});
