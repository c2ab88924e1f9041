// `--markdown` and `--compare` (issue 17): pure functions of the rows, checked on fixture JSON,
// and wired into the runner with `--no-run`, so nothing here is timed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareResults, formatComparison, verdict } from '../../bench/compare.js';
import { formatMarkdown, formatSuiteMarkdown, isBound, isPeerDefault } from '../../bench/markdown.js';
import type { BenchReport } from '../../bench/report.js';
import { parseArguments, runBench } from '../../bench/run.js';
import type { BenchResult } from '../../bench/suite.js';

const r = (
  client: string,
  value: number,
  unit = 'ops/s',
  caseName = 'GET',
  suite = 'client',
): BenchResult => ({
  suite,
  case: caseName,
  client,
  value,
  unit,
});

/** A client case as `npm run bench` writes it: both configurations of each peer, a ceiling, CPU. */
const FIXTURE: BenchResult[] = [
  r('respire', 1000),
  r('ioredis', 100),
  r('ioredis auto-pipelining', 400),
  r('node-redis', 50),
  r('node-redis, no command timeout', 500),
  r('redis-benchmark -c 1 -P 16', 300),
  r('respire', 2, 'CPU µs/op'),
  r('ioredis', 8, 'CPU µs/op'),
  r('ioredis auto-pipelining', 4, 'CPU µs/op'),
  r('respire, circuit closed', 7, 'ns/op', 'admit', 'breaker'),
  r('respire + breaker', 0.2, 'ms', 'p99', 'outage'),
  r('ioredis', 10_000, 'ms', 'p99', 'outage'),
  r('respire / ioredis auto-pipelining', 2.5, '× the fastest peer'),
];

describe('--markdown', () => {
  it('tells peers at their defaults from their faster configurations, and bounds from peers', () => {
    const peers = ['ioredis', 'ioredis auto-pipelining', 'node-redis', 'node-redis, no command timeout'];
    expect(peers.filter((p) => isPeerDefault(p, peers))).toEqual(['ioredis', 'node-redis']);
    expect(
      ['redis-benchmark -c 1 -P 16', 'indexOf floor', 'floor: performance.now() alone', 'ioredis'].map(
        isBound,
      ),
    ).toEqual([true, true, true, false]);
  });

  it('rates Respire against the fastest configuration first, the defaults beside it', () => {
    const lines = formatSuiteMarkdown(
      'client',
      FIXTURE.filter((row) => row.suite === 'client'),
    ).split('\n');
    expect(lines[0]).toBe('#### client');
    expect(lines[2]).toBe(
      '| case | unit | Respire | vs the fastest peer configuration | vs each peer at its defaults | bounds |',
    );
    expect(lines[4]).toBe(
      '| GET | ops/s | respire | 2.00× node-redis, no command timeout (1,000 vs 500) | 10.00× ioredis (1,000 vs 100); 20.00× node-redis (1,000 vs 50) | 300 redis-benchmark -c 1 -P 16 |',
    );
    // A cost: lower is better, so the fastest configuration is the cheapest one.
    expect(lines[5]).toBe(
      '| GET | CPU µs/op | respire | 2.00× ioredis auto-pipelining (2 vs 4) | 4.00× ioredis (2 vs 8) |  |',
    );
    // The derived `×` row says what the ratio table says, so it is left out.
    expect(lines.join('\n')).not.toContain('the fastest peer |');
  });

  it('puts Respire-only suites and units without a direction in a table of values', () => {
    const text = formatMarkdown(FIXTURE);
    expect(text.split('\n\n').map((block) => block.split('\n')[0])).toEqual([
      '#### client',
      '| case | unit | Respire | vs the fastest peer configuration | vs each peer at its defaults | bounds |',
      '#### breaker',
      '| case | unit | respire, circuit closed |',
      '#### outage',
      '| case | unit | respire + breaker | ioredis |',
    ]);
    expect(text).toContain('| p99 | ms | 0.2 | 10,000 |');
  });
});

describe('--compare', () => {
  const before: BenchResult[] = [
    r('respire', 800),
    r('ioredis', 100),
    r('node-redis', 60),
    r('respire', 2.5, 'CPU µs/op'),
    r('respire', 10, 'ns/op', 'admit', 'breaker'),
  ];
  const after: BenchResult[] = [
    r('respire', 1000),
    r('ioredis', 102),
    r('respire', 2, 'CPU µs/op'),
    r('respire', 1, 'ops/s', 'SET'),
  ];

  it('divides each figure by the same figure of the earlier run', () => {
    const changes = compareResults(before, after);
    expect(changes.map((c) => [c.client, c.case, c.unit, c.ratio])).toEqual([
      ['respire', 'GET', 'ops/s', 1.25],
      ['ioredis', 'GET', 'ops/s', 1.02],
      ['respire', 'GET', 'CPU µs/op', 0.8],
      ['respire', 'SET', 'ops/s', undefined],
      // Lost from a suite that ran; the breaker suite did not run, so it is not listed.
      ['node-redis', 'GET', 'ops/s', undefined],
    ]);
    expect(changes.map(verdict)).toEqual(['+', '=', '+', 'new', 'gone']);
  });

  it('prints a table per suite with the ratio and its direction', () => {
    const text = formatComparison(compareResults(before, after), 'old.json');
    const lines = text.split('\n');
    expect(lines[0]).toBe('client (before: old.json)');
    expect(lines[1]).toMatch(/^case\s+client\s+unit\s+before\s+after\s+after\/before$/);
    expect(lines[2]).toMatch(/^GET\s+respire\s+ops\/s\s+800\s+1,000\s+1\.25×\s+\+$/);
    expect(lines[4]).toMatch(/^\s+respire\s+CPU µs\/op\s+2\.5\s+2\s+0\.80×\s+\+$/);
    expect(lines[6]).toMatch(/^GET\s+node-redis\s+ops\/s\s+60\s+–\s+–\s+gone$/);
  });
});

describe('the runner’s --markdown, --compare and --no-run', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'respire-bench-md-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const report = (results: BenchResult[]): BenchReport => ({
    results,
    meta: { node: 'v20', cpu: 'x', date: '2026-01-01T00:00:00.000Z', command: 'npm run bench' },
  });

  it('parses the flags and refuses --json with --markdown', () => {
    const options = parseArguments(['--markdown', '--compare', 'old.json', '--no-run']);
    expect([options.markdown, path.basename(options.compare!), options.noRun]).toEqual([
      true,
      'old.json',
      true,
    ]);
    expect(() => parseArguments(['--json', '--markdown'])).toThrow(/give one/);
  });

  it('reports a saved run without running a suite', async () => {
    const out = path.join(dir, 'latest.json');
    const old = path.join(dir, 'old.json');
    await writeFile(out, JSON.stringify(report(FIXTURE)));
    await writeFile(old, JSON.stringify(report([r('respire', 500)])));
    let stdout = '';
    const code = await runBench(
      ['--no-run', '--markdown', '--only', 'client', '--out', out, '--compare', old],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: () => {},
        loadSuites: () => Promise.reject(new Error('--no-run loads no suite')),
      },
    );
    expect(code).toBe(0);
    expect(stdout).toContain('#### client');
    expect(stdout).not.toContain('#### outage');
    expect(stdout).toMatch(/GET\s+respire\s+ops\/s\s+500\s+1,000\s+2\.00×\s+\+/);
  });

  it('a missing --compare file is a usage error before anything runs', async () => {
    let stderr = '';
    const code = await runBench(['--compare', path.join(dir, 'none.json')], {
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
      loadSuites: () => Promise.reject(new Error('nothing may run')),
    });
    expect(code).toBe(2);
    expect(stderr).toContain('no benchmark report at');
  });
});
