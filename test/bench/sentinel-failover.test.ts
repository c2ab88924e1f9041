// The `sentinel-failover` suite in its --quick form, from source (it runs in the runner's process):
// every fault × client × metric comes out as a row with a finite number, and both charts are written
// beside the results. Its timings belong to the bench, never to this test; the figures that must
// hold whatever the timing (Respire sends nothing to the demoted primary) are asserted.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, resumeMs } from '../../bench/sentinel/failover-run.js';
import type { BenchContext, BenchResult } from '../../bench/suite.js';
import {
  FAULTS,
  SENTINEL_CLIENTS,
  SENTINEL_METRICS,
  sentinelFailoverSuite,
} from '../../bench/suites/sentinel-failover.js';

describe('resumeMs', () => {
  const call = (key: string, settledAt: number): Call => ({
    key,
    startedAt: settledAt - 1,
    settledAt,
    ok: true,
  });

  it('ends at the first kept acknowledgement after the longest stretch without one after the fault', () => {
    const calls = [call('a', 90), call('b', 120), call('lost', 200), call('c', 900), call('d', 950)];
    expect(resumeMs(calls, new Set(['a', 'b', 'c', 'd']), 100)).toBe(800);
  });

  it('is zero when nothing kept came after the fault', () => {
    expect(resumeMs([call('a', 90)], new Set(['a']), 100)).toBe(0);
  });
});

describe('sentinel-failover --quick', () => {
  let dir: string;
  let rows: BenchResult[];
  const lines: string[] = [];

  beforeAll(async () => {
    // The suite imports each client when its run connects, inside a Sentinel group, so with the
    // machine's topology slot held (test/kit/topology-gate.ts): from source, Respire's first import
    // (transformed here) took ~3 s of it. Loaded first, the suite's imports find them cached.
    await Promise.all([import('../../src/index.js'), import('ioredis'), import('redis')]);
    dir = await mkdtemp(path.join(os.tmpdir(), 'respire-sentinel-failover-'));
    const context = {
      quick: true,
      resultsDir: dir,
      blipSeconds: undefined,
      log: (line: string) => void lines.push(line),
      redisUrl: () => Promise.reject(new Error('not used')),
      redisCluster: () => Promise.reject(new Error('not used')),
    } satisfies BenchContext & { resultsDir: string; blipSeconds: undefined };
    rows = await sentinelFailoverSuite.run(context);
  }, 240_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives every fault × client × metric as a finite, non-negative number', () => {
    const expected = FAULTS.flatMap((fault) =>
      SENTINEL_CLIENTS.flatMap((client) =>
        SENTINEL_METRICS.map((metric) => ({ case: `${fault} › ${metric.case}`, client, unit: metric.unit })),
      ),
    );
    expect(rows.map(({ case: name, client, unit }) => ({ case: name, client, unit }))).toEqual(expected);
    for (const row of rows) {
      expect(row.suite).toBe('sentinel-failover');
      expect(Number.isFinite(row.value) && row.value >= 0).toBe(true);
    }
  });

  it('has Respire send no write to the demoted primary after the switch was known', () => {
    const demoted = rows.filter(
      (row) => row.client === 'respire' && row.case.includes('writes sent to the demoted primary'),
    );
    expect(demoted.map((row) => row.value)).toEqual([0, 0]);
  });

  it('writes a chart per fault beside the results', async () => {
    for (const fault of FAULTS) {
      const svg = await readFile(
        path.join(dir, `sentinel-failover-${fault.replaceAll(' ', '-')}.svg`),
        'utf8',
      );
      expect(svg).toMatch(/^<svg /);
      for (const client of SENTINEL_CLIENTS) expect(svg).toContain(`>${client}<`);
    }
  });
});
