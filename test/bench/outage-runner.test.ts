// How the runner carries the outage scenario (--blip, the results directory, running it after the
// throughput suites) and how the scenario's figures become rows, a side-by-side table and the
// issue-6 targets for Respire with its breaker.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkTargets,
  formatOutageTable,
  METRICS,
  outageChartInput,
  outageRows,
} from '../../bench/outage/results.js';
import type { OutageReport } from '../../bench/outage/scenario.js';
import { CONTENDERS, outageSettings, SCALED_BREAKER } from '../../bench/outage/settings.js';
import type { ContenderSummary } from '../../bench/outage/summary.js';
import { parseArguments, type RunSettings, runBench } from '../../bench/run.js';
import type { BenchContext, BenchSuite } from '../../bench/suite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'respire-outage-runner-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the runner', () => {
  it('takes --blip in seconds, in both spellings, and refuses what is not a positive number', () => {
    expect(parseArguments([]).blipSeconds).toBeUndefined();
    expect(parseArguments(['--blip', '2']).blipSeconds).toBe(2);
    expect(parseArguments(['--blip=0.5']).blipSeconds).toBe(0.5);
    expect(() => parseArguments(['--blip', '0'])).toThrow('--blip needs a positive number of seconds, got 0');
    expect(() => parseArguments(['--blip=soon'])).toThrow('got soon');
  });

  it('runs a runsLast suite after the others unless --only orders them, and gives suites --blip and the results dir', async () => {
    const ran: string[] = [];
    const seen: (BenchContext & Partial<RunSettings>)[] = [];
    const suite = (name: string, runsLast = false): BenchSuite =>
      Object.assign(
        {
          name,
          run: async (context: BenchContext) => {
            ran.push(name);
            seen.push(context);
            return [{ suite: name, case: 'c', client: 'respire', value: 1, unit: 'ms' }];
          },
        },
        runsLast ? { runsLast: true } : {},
      );
    const io = {
      stdout: () => {},
      stderr: () => {},
      env: {},
      loadSuites: async () => [suite('a'), suite('outage', true), suite('z')],
    };
    const out = path.join(dir, 'latest.json');
    expect(await runBench(['--out', out, '--blip', '3'], io)).toBe(0);
    expect(ran).toEqual(['a', 'z', 'outage']);
    expect(seen[2]).toMatchObject({ blipSeconds: 3, resultsDir: dir });
    ran.length = 0;
    expect(await runBench(['--out', out, '--only', 'outage,a'], io)).toBe(0);
    expect(ran).toEqual(['outage', 'a']);
    expect(seen[4]?.blipSeconds).toBeUndefined();
  });
});

describe('outageSettings', () => {
  it('defaults to a 10 s blip, 64 producers at 5,000 calls/s, and scales only the breaker windows', () => {
    const settings = outageSettings(false);
    expect(settings).toMatchObject({ producers: 64, callsPerSecond: 5_000, blipMs: 10_000 });
    expect(outageSettings(true)).toMatchObject({ producers: 16, blipMs: 2_000 });
    expect(outageSettings(true, 3)).toMatchObject({ producers: 16, blipMs: 3_000 });
    expect(SCALED_BREAKER).toEqual({
      failureRateThreshold: 0.5,
      minimumFailureCount: 5,
      samplingWindow: 5_000,
      maximumSampleCount: 1024,
      openDuration: 1_000,
      halfOpenProbeCount: 1,
    });
    expect(CONTENDERS.map((contender) => [contender.driver, contender.circuitBreaker !== null])).toEqual([
      ['respire', true],
      ['respire', false],
      ['ioredis', false],
      ['node-redis', false],
    ]);
    expect(() => outageSettings(false, 0)).toThrow(RangeError);
  });
});

function summary(contender: string, overrides: Partial<ContenderSummary> = {}): ContenderSummary {
  return {
    contender,
    counts: {
      completed: 100,
      rejectedFast: 0,
      timedOut: 0,
      failed: 0,
      pending: 0,
      notIssued: 0,
      issued: 100,
    },
    blipLatencyMs: { calls: 10, p50: 1, p99: 2, max: 3 },
    circuit: null,
    baselineCallsPerSecond: 5_000,
    healToFullMs: 2,
    recovered: true,
    eventLoopDelayP99Ms: 12,
    heapGrowthMb: 3,
    taskPacePercent: 99.5,
    errors: {},
    series: { fromS: -3, bucketMs: 250, throughput: [], p99WaitMs: [] },
    ...overrides,
  };
}

describe('outage results', () => {
  const breaker = summary('respire + breaker', {
    circuit: { opened: true, openedAfterMs: 5_000, p99AfterOpenMs: 0.04 },
  });
  const report: OutageReport = {
    settings: outageSettings(false),
    summaries: [breaker, summary('ioredis', { counts: { ...breaker.counts, pending: 64 } })],
  };

  it('has a row per metric and contender, circuit rows only with a circuit, rounded', () => {
    const rows = outageRows(report);
    expect(rows).toHaveLength(METRICS.length * 2 - 2);
    expect(rows.every((row) => row.suite === 'outage')).toBe(true);
    expect(
      rows.find((row) => row.client === 'ioredis' && row.case === 'calls pending at the end')?.value,
    ).toBe(64);
    expect(rows.filter((row) => row.case.includes('circuit')).map((row) => row.client)).toEqual([
      'respire + breaker',
      'respire + breaker',
    ]);
  });

  it('prints a column per contender, a dash where a metric does not apply, and says when a circuit never opened', () => {
    const table = formatOutageTable(report).split('\n');
    expect(table[0]).toMatch(/^\s+respire \+ breaker {2}ioredis$/);
    expect(table.find((line) => line.startsWith('blip: circuit opened after'))).toMatch(/5,000\s+–$/);
    const never = formatOutageTable({
      ...report,
      summaries: [
        summary('respire + breaker', { circuit: { opened: false, openedAfterMs: 2_000, p99AfterOpenMs: 0 } }),
      ],
    });
    expect(never).toMatch(/circuit opened after \(ms\)\s+never opened/);
    const failures = formatOutageTable({
      ...report,
      summaries: [summary('a', { errors: { B: 1, A: 2_000 } })],
    });
    expect(failures).toContain('errors of a: A 2,000, B 1');
    expect(formatOutageTable(report)).toContain('errors of ioredis: none');
  });

  it('titles the chart with the blip in seconds and marks where a circuit opened', () => {
    const chart = outageChartInput(report);
    expect(chart.title).toBe("A 10 s Redis blip under load: what each client's callers saw");
    expect(outageChartInput({ ...report, settings: outageSettings(true, 0.25) }).title).toMatch(
      /^A 0\.25 s Redis/,
    );
    expect(chart.lines.map((line) => line.mark?.atS)).toEqual([5, undefined]);
  });

  it('checks the issue-6 targets and names the one missed', () => {
    expect(checkTargets(breaker).every((check) => check.met)).toBe(true);
    const slow = checkTargets({
      ...breaker,
      circuit: { opened: true, openedAfterMs: 5_000, p99AfterOpenMs: 3_990 },
      healToFullMs: 1_500,
    });
    expect(slow.filter((check) => !check.met).map((check) => check.measured)).toEqual([
      '3,990 ms',
      '1,500 ms',
    ]);
  });
});
