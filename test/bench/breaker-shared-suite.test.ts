// The `breaker-shared` suite (issue 15), compiled and run quick as `npm run bench` runs it (its
// workers are compiled threads): every row it promises, each a finite figure, and in the outage
// case the shared registry's failures stay within minimumFailureCount plus one command in flight
// per other worker.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BenchReport } from '../../bench/report.js';
import { type CompiledBench, compileBench, runCompiledBench } from './compiled-bench.js';

let bench: CompiledBench;
let dir = '';
beforeAll(async () => {
  bench = await compileBench();
  dir = await mkdtemp(path.join(os.tmpdir(), 'respire-breaker-shared-'));
}, 120_000);
afterAll(async () => {
  await bench?.remove();
  await rm(dir, { recursive: true, force: true });
});

it('reports admit+success per worker count and contender, the ratios, and the outage counts', async () => {
  const out = path.join(dir, 'latest.json');
  const outcome = await runCompiledBench(bench, [
    '--quick',
    '--only',
    'breaker-shared',
    '--json',
    '--out',
    out,
  ]);
  expect(outcome.code).toBe(0);
  const rows = (JSON.parse(outcome.stdout) as BenchReport).results;
  expect(
    rows.every((row) => row.suite === 'breaker-shared' && Number.isFinite(row.value) && row.value >= 0),
  ).toBe(true);
  const timed = rows.filter((row) => row.unit === 'ns/op').map((row) => `${row.case} | ${row.client}`);
  expect(timed).toEqual([
    'admit+success, 1 worker(s) | single-thread CircuitBreaker (one per worker)',
    'admit+success, 1 worker(s) | shared: one circuit',
    'admit+success, 2 worker(s) | single-thread CircuitBreaker (one per worker)',
    'admit+success, 2 worker(s) | shared: one circuit',
    'admit+success, 2 worker(s) | shared: a circuit each',
    'admit+success, 4 worker(s) | single-thread CircuitBreaker (one per worker)',
    'admit+success, 4 worker(s) | shared: one circuit',
    'admit+success, 4 worker(s) | shared: a circuit each',
  ]);
  // Five wall-clock ratios, and the like-for-like one (one thread, alternating rounds, CPU time).
  expect(rows.filter((row) => row.unit === 'x')).toHaveLength(6);
  const likeForLike = 'admit+success, uncontended, alternating rounds, CPU time';
  expect(rows.filter((row) => row.unit === 'CPU ns/op').map((row) => `${row.case} | ${row.client}`)).toEqual([
    `${likeForLike} | single-thread CircuitBreaker (one per worker)`,
    `${likeForLike} | shared: one circuit`,
  ]);
  expect(rows.some((row) => row.unit === 'x' && row.case.startsWith(likeForLike))).toBe(true);
  const sharedFailures = rows.find((row) => row.unit === 'failures' && row.client === 'shared registry')!;
  expect(sharedFailures.value).toBeGreaterThan(0);
  expect(sharedFailures.value).toBeLessThanOrEqual(5 + 3);
  expect(rows.filter((row) => row.unit === 'commands reached the proxy')).toHaveLength(2);
}, 120_000);
