// The `cluster` suite end to end, compiled as `npm run bench` runs it: quick rounds and a 1 s blip,
// on the local cluster the runner starts and stops. Asserts the shape of what comes out (every
// case × contender × unit, the ratio to the fastest peer, every blip row, the chart beside the
// results), never its timings, which belong to the bench.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLIP_CASE_PREFIX, CLUSTER_METRICS } from '../../bench/outage/cluster-blip.js';
import { CIRCUIT_CASES, METRICS } from '../../bench/outage/results.js';
import { CONTENDERS } from '../../bench/outage/settings.js';
import type { BenchReport } from '../../bench/report.js';
import { FASTEST_PEER_UNIT } from '../../bench/suites/cluster.js';
import { type CompiledBench, compileBench, type RunOutcome, runCompiledBench } from './compiled-bench.js';

const CASES = [
  'GET 16 B, Promise.all of 1000 over every slot',
  'SET 16 B, Promise.all of 1000 over every slot',
  'MGET of 10 keys in 10 slots, Promise.all of 100',
  'GET 16 B, 100 sequential awaits over every slot',
];
const CLIENTS = [
  'respire',
  'ioredis Cluster',
  'ioredis Cluster auto-pipelining',
  'node-redis createCluster',
  'node-redis createCluster, no command timeout',
];

describe('npm run bench -- --only cluster --quick --blip 1 --json', () => {
  let bench: CompiledBench;
  let dir: string;
  let outcome: RunOutcome;
  let report: BenchReport;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'respire-cluster-bench-'));
    bench = await compileBench();
    outcome = await runCompiledBench(bench, [
      ...['--only', 'cluster', '--quick', '--blip', '1', '--json'],
      ...['--out', path.join(dir, 'latest.json')],
    ]);
    report = JSON.parse(outcome.stdout || '{"results":[]}') as BenchReport;
  }, 150_000);

  afterAll(async () => {
    await bench?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0 having started and stopped its own cluster, and said what the blip ran', () => {
    expect(outcome.stderr).not.toMatch(/cluster failed|failed suites/);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toMatch(
      /started a local Redis Cluster at (127\.0\.0\.1:\d+, ){5}127\.0\.0\.1:\d+/,
    );
    expect(outcome.stderr).toContain('stopped the local Redis Cluster');
    expect(outcome.stderr).not.toContain('redis-server at');
    expect(outcome.stderr).toContain('(SPUBLISH and XADD over 1,024 keys), blip 1 s');
    for (const [index, contender] of CONTENDERS.entries()) {
      expect(outcome.stderr).toContain(`cluster blip ${index + 1}/4 ${contender.name} · blip 0.0/1.0 s`);
    }
  });

  it('reports ops/s and CPU µs/op of every contender in every case, and Respire over the fastest peer', () => {
    const throughput = report.results.filter((row) => CASES.includes(row.case));
    expect(throughput.map((row) => `${row.case} | ${row.client} | ${row.unit}`)).toEqual([
      ...CASES.flatMap((name) => [
        ...CLIENTS.map((client) => `${name} | ${client} | ops/s`),
        ...CLIENTS.map((client) => `${name} | ${client} | CPU µs/op`),
      ]),
      ...CASES.map((name) => expect.stringMatching(`^${name} \\| respire / .+ \\| ${FASTEST_PEER_UNIT}$`)),
    ]);
    for (const row of throughput) {
      expect(row.suite).toBe('cluster');
      expect(Number.isFinite(row.value) && row.value > 0, `${row.client}: ${row.case}`).toBe(true);
    }
  });

  it('reports every blip metric of every contender, and writes the same rows', async () => {
    const blip = report.results.filter((row) => row.case.startsWith(BLIP_CASE_PREFIX));
    const expected = [...CLUSTER_METRICS, ...METRICS].flatMap((metric) =>
      CONTENDERS.filter((contender) => {
        // In a 1 s blip no circuit opens: the black-holed primary's p99s after the opening (as its
        // callers saw it and as the client settled it) are absent.
        if (metric === CLUSTER_METRICS[1] || metric === CLUSTER_METRICS[2]) return false;
        return contender.circuitBreaker !== null || !CIRCUIT_CASES.has(metric.case);
      }).map((contender) => `${BLIP_CASE_PREFIX}${metric.case} | ${contender.name}`),
    );
    expect(blip.map((row) => `${row.case} | ${row.client}`)).toEqual(expected);
    expect(blip.every((row) => Number.isFinite(row.value) && row.value >= 0)).toBe(true);
    const completed = blip.filter((row) => row.case === `${BLIP_CASE_PREFIX}calls completed`);
    expect(completed.every((row) => row.value > 0)).toBe(true);
    const written = JSON.parse(await readFile(path.join(dir, 'latest.json'), 'utf8')) as BenchReport;
    expect(written.results).toEqual(report.results);
  });

  it('writes cluster-outage.svg beside the results, with the blip and every contender', async () => {
    const svg = await readFile(path.join(dir, 'cluster-outage.svg'), 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('>one primary black-holed</text>');
    expect(svg).toContain('One of 3 primaries black-holed for 1 s under load');
    for (const contender of CONTENDERS) expect(svg).toContain(`>${contender.name}</text>`);
  });
});
