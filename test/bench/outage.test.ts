// The outage scenario end to end, compiled as `npm run bench` runs it: a short blip (2 s) with the
// quick workload, every contender in its own process. Asserts the shape of what comes out (every
// contender and metric present, numbers finite, the chart written beside the results), never its
// timings, which belong to the bench.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CIRCUIT_CASES, METRICS } from '../../bench/outage/results.js';
import { CONTENDERS } from '../../bench/outage/settings.js';
import type { BenchReport } from '../../bench/report.js';
import { type CompiledBench, compileBench, type RunOutcome, runCompiledBench } from './compiled-bench.js';

describe('npm run bench -- --only outage --blip 2 --quick --json', () => {
  let bench: CompiledBench;
  let dir: string;
  let outcome: RunOutcome;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'respire-outage-'));
    bench = await compileBench();
    outcome = await runCompiledBench(bench, [
      ...['--only', 'outage', '--blip', '2', '--quick', '--json'],
      ...['--out', path.join(dir, 'latest.json')],
    ]);
  }, 90_000);

  afterAll(async () => {
    await bench?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0 having started and stopped its own server and said what it ran', () => {
    expect(outcome.stderr).not.toMatch(/outage failed|failed suites/);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain('started a local redis-server');
    expect(outcome.stderr).toContain('16 producers, 2,000 calls/s (PUBLISH and XADD), blip 2 s');
    expect(outcome.stderr).toContain('openDuration 1000 ms, samplingWindow 5000 ms');
    expect(outcome.stderr).toContain('stopped the local redis-server');
    // The progress line outside a terminal: one line per phase of each contender.
    for (const [index, contender] of CONTENDERS.entries()) {
      expect(outcome.stderr).toContain(`outage ${index + 1}/4 ${contender.name} · blip 0.0/2.0 s`);
    }
  });

  it('prints every contender × metric as a finite number, and writes the same rows', async () => {
    const report = JSON.parse(outcome.stdout) as BenchReport;
    expect(report.meta.command).toBe(
      `npm run bench -- --only outage --blip 2 --quick --json --out ${path.join(dir, 'latest.json')}`,
    );
    const expected = METRICS.flatMap((metric) =>
      CONTENDERS.filter(
        (contender) => contender.circuitBreaker !== null || !CIRCUIT_CASES.has(metric.case),
      ).map((contender) => ({ case: metric.case, client: contender.name, unit: metric.unit })),
    );
    expect(report.results.map(({ case: name, client, unit }) => ({ case: name, client, unit }))).toEqual(
      expected,
    );
    for (const row of report.results) {
      expect(row.suite).toBe('outage');
      expect(Number.isFinite(row.value), `${row.client}: ${row.case} = ${row.value}`).toBe(true);
      expect(row.value).toBeGreaterThanOrEqual(0);
    }
    // Each contender completed calls and its unrelated task ran (how the counts add up is
    // outage-summary.test.ts's business: these rows are rounded to four digits).
    for (const contender of CONTENDERS) {
      const value = (name: string) =>
        report.results.find((row) => row.client === contender.name && row.case === name)!.value;
      expect(value('calls completed')).toBeGreaterThan(0);
      expect(value('unrelated task: ticks run')).toBeGreaterThan(0);
      expect(value('unrelated task: ticks run')).toBeLessThanOrEqual(100);
    }
    const written = JSON.parse(await readFile(path.join(dir, 'latest.json'), 'utf8')) as BenchReport;
    expect(written.results).toEqual(report.results);
  });

  it('writes the chart beside the results: an SVG with the blip, axes and every contender in the legend', async () => {
    const svg = await readFile(path.join(dir, 'outage.svg'), 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('Redis black-holed');
    expect(svg).toContain('completed calls per second');
    expect(svg).toContain('seconds from the start of the blip');
    for (const contender of CONTENDERS) expect(svg).toContain(`>${contender.name}</text>`);
    expect(svg.match(/<polyline /g)?.length ?? 0).toBeGreaterThanOrEqual(CONTENDERS.length * 2);
  });
});
