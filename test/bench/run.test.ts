// The benchmark runner: flags, JSON shape of a real quick run, merging into latest.json, and the
// lazily started redis-server (never started for suites that do not ask, always stopped).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findRedisBenchmark } from '../../bench/clients/redis-benchmark.js';
import type { BenchReport } from '../../bench/report.js';
import { loadSuiteDirectory, parseArguments, type RunEnvironment, runBench } from '../../bench/run.js';
import type { BenchContext, BenchResult, BenchSuite } from '../../bench/suite.js';
import { RawConnection } from '../kit/raw-connection.js';
import { type CompiledBench, compileBench, runCompiledBench } from './compiled-bench.js';

let dir: string;
let out: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'respire-bench-'));
  out = path.join(dir, 'latest.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Captured {
  stdout: string;
  stderr: string;
  serverStarts: number;
  clusterStarts: number;
}

function environment(overrides: Partial<RunEnvironment> = {}): {
  io: Partial<RunEnvironment>;
  captured: Captured;
} {
  const captured: Captured = { stdout: '', stderr: '', serverStarts: 0, clusterStarts: 0 };
  const io: Partial<RunEnvironment> = {
    stdout: (text) => {
      captured.stdout += text;
    },
    stderr: (text) => {
      captured.stderr += text;
    },
    env: {},
    startServer: async () => {
      captured.serverStarts++;
      throw new Error('this run must not start a server');
    },
    startCluster: async () => {
      captured.clusterStarts++;
      throw new Error('this run must not start a cluster');
    },
    now: () => new Date('2025-01-02T03:04:05.000Z'),
    ...overrides,
  };
  return { io, captured };
}

function suite(
  name: string,
  run: (context: BenchContext) => Promise<BenchResult[]> | BenchResult[],
): BenchSuite {
  return { name, run: async (context) => run(context) };
}

function row(suiteName: string, client: string, value: number): BenchResult {
  return { suite: suiteName, case: 'case A', client, value, unit: 'ops/s' };
}

const OFF = 'respire, circuitBreaker null';
const CLOSED = 'respire, circuit closed';
const METERED = 'respire, circuit closed, meter';

describe('a quick run of every isolated suite, compiled as npm run bench runs it', () => {
  let bench: CompiledBench;
  beforeAll(async () => {
    bench = await compileBench();
  });
  afterAll(async () => {
    await bench?.remove();
  });

  it('prints the documented JSON with every case and contender, writes the same rows, stops its server', async () => {
    // More room than the 5 s default for Respire's replies: other work may load this machine, and
    // this run checks what is reported, not how fast (bench/clients/respire.ts).
    const outcome = await runCompiledBench(
      bench,
      ['--quick', '--only', 'resp-decode,resp-encode,client,breaker-client', '--json', '--out', out],
      { BENCH_RESPIRE_COMMAND_TIMEOUT: '60000' },
    );
    expect(outcome.stderr).not.toMatch(/failed/);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain('stopped the local redis-server');

    const printed = JSON.parse(outcome.stdout) as BenchReport;
    expect(Object.keys(printed).sort()).toEqual(['meta', 'results']);
    expect(printed.meta).toEqual({
      node: process.version,
      cpu: expect.any(String),
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      command: `npm run bench -- --quick --only resp-decode,resp-encode,client,breaker-client --json --out ${out}`,
    });
    for (const result of printed.results) {
      expect(Object.keys(result).sort()).toEqual(['case', 'client', 'suite', 'unit', 'value']);
      expect(Number.isFinite(result.value) && result.value > 0).toBe(true);
    }
    const bySuite = (name: string) => printed.results.filter((result) => result.suite === name);
    const decode = bySuite('resp-decode');
    const encode = bySuite('resp-encode');
    const client = bySuite('client');
    const breakerClient = bySuite('breaker-client');
    expect(decode.length + encode.length + client.length + breakerClient.length).toBe(printed.results.length);

    const decodeCases = [...new Set(decode.map((result) => result.case))];
    expect(decodeCases).toEqual([
      'mixed small replies',
      '1 KiB bulks',
      '1 MiB bulks',
      'LRANGE 1000 items',
      'HGETALL 20 fields (map)',
      '1 MiB bulks as Buffers',
    ]);
    for (const decodeCase of decodeCases) {
      const rows = decode.filter((result) => result.case === decodeCase);
      expect(rows.map((result) => `${result.client} ${result.unit}`).sort()).toEqual(
        ['respire', 'redis-parser', '@redis/client', 'indexOf floor']
          .flatMap((name) => [`${name} replies/s`, `${name} MB/s`])
          .sort(),
      );
    }

    expect([...new Set(encode.map((result) => result.case))]).toEqual([
      'GET small',
      'SET small',
      'SET 1 KiB',
      'HSET 10 fields',
      'SET 100 KiB Buffer',
    ]);
    expect(encode.every((result) => result.unit === 'commands/s')).toBe(true);
    expect(new Set(encode.map((result) => result.client))).toEqual(
      new Set([
        'respire',
        'respire CommandEncoder',
        '@redis/client',
        'ioredis',
        '@redis/client as bytes',
        'ioredis as bytes',
      ]),
    );

    const found = findRedisBenchmark() !== undefined;
    const ceiling = found ? ['redis-benchmark -c 1 -P 16'] : [];
    // Every peer at its defaults and at its fastest configuration (issue 17).
    const everyClient = [
      'respire',
      'ioredis',
      'ioredis auto-pipelining',
      'node-redis',
      'node-redis, no command timeout',
    ];
    const clientsOf = (name: string, unit = 'ops/s') =>
      client.filter((result) => result.case === name && result.unit === unit).map((result) => result.client);
    expect(new Set(client.map((result) => result.unit))).toEqual(new Set(['ops/s', 'CPU µs/op']));
    // Every client also reports its CPU time per op; the ceiling runs outside any Node process.
    expect(clientsOf('SET 16 B, Promise.all of 1000', 'CPU µs/op')).toEqual(everyClient);
    expect(clientsOf('GET 16 B, sequential awaits')).toEqual(everyClient);
    expect(clientsOf('GET 16 B, Promise.all of 1000')).toEqual([...everyClient, ...ceiling]);
    expect(clientsOf('SET 16 B, Promise.all of 1000')).toEqual([...everyClient, ...ceiling]);
    expect(clientsOf('GET 16 B, pipelines of 100')).toEqual([
      'respire',
      'ioredis',
      'node-redis',
      'node-redis, no command timeout',
      ...(found ? ['redis-benchmark -c 1 -P 100'] : []),
    ]);
    expect(clientsOf('GET 1 KiB, Promise.all of 100')).toEqual(everyClient);
    // The large-string GETs' floor (the strings alone) runs in a Node process: CPU µs/op too.
    const floor = 'floor: the strings alone, no client';
    expect(clientsOf('GET 100 KiB, Promise.all of 100')).toEqual([...everyClient, floor]);
    expect(clientsOf('GET 100 KiB, Promise.all of 100', 'CPU µs/op')).toEqual([...everyClient, floor]);
    expect(clientsOf('GET 100 KiB, Promise.all of 100, replies kept a pass')).toEqual([
      'respire',
      'respire returnBuffers',
      ...everyClient.slice(1),
      floor,
    ]);
    expect(clientsOf('SET 100 KiB, Promise.all of 100')).toEqual(everyClient);
    expect(clientsOf('GET 1 MiB, Promise.all of 10, replies kept a pass')).toEqual([...everyClient, floor]);
    expect(clientsOf('SET 1 MiB, Promise.all of 10')).toEqual(everyClient);

    // Each breaker-client case in its unit, then CPU µs/op, contender by contender; its Respire
    // processes passed the runner's isolation check, or the suite would have failed.
    expect(breakerClient.map((result) => `${result.case} | ${result.client} | ${result.unit}`)).toEqual(
      [
        ['GET 16 B, Promise.all of 1000', 'ops/s', [OFF, CLOSED, METERED]],
        ['GET 16 B, Promise.all of 1000', 'CPU µs/op', [OFF, CLOSED, METERED]],
        ['GET rejected by an open circuit, 1000 at once', 'rejections/s', ['respire, circuit open']],
        ['GET rejected by an open circuit, 1000 at once', 'CPU µs/op', ['respire, circuit open']],
        ['RespireCircuitOpenError construction', 'errors/s', ['new RespireCircuitOpenError']],
        ['RespireCircuitOpenError construction', 'CPU µs/op', ['new RespireCircuitOpenError']],
      ].flatMap(([name, unit, contenders]) =>
        (contenders as string[]).map((contender) => `${name} | ${contender} | ${unit}`),
      ),
    );

    const written = JSON.parse(await readFile(out, 'utf8')) as BenchReport;
    expect(written).toEqual(printed);
  }, 360_000); // The client suite runs each peer at its defaults and at its fastest setting (issue 17).
});

describe('the table', () => {
  it('prints a table with Respire’s ratio to each peer and the floor when --json is absent', async () => {
    const { io, captured } = environment({
      loadSuites: async () => [
        suite('demo', () => [
          row('demo', 'respire', 300),
          row('demo', 'peer', 100),
          { suite: 'demo', case: 'case A', client: 'indexOf floor', value: 600, unit: 'ops/s' },
        ]),
      ],
    });
    expect(await runBench(['--out', out], io)).toBe(0);
    expect(captured.stdout).toContain('respire / peer = 3.00×');
    expect(captured.stdout).toContain('respire / indexOf floor = 0.50×');
    expect(captured.stdout.startsWith('demo\n')).toBe(true);
    expect(captured.stderr).toContain('running demo');
  });
});

describe('suites', () => {
  it('are found in bench/suites/ without a list to maintain', async () => {
    const suites = await loadSuiteDirectory(path.resolve(import.meta.dirname, '../../bench/suites'));
    const names = suites.map((found) => found.name);
    expect(names).toContain('resp-decode');
    expect(names).toContain('resp-encode');
    expect(names).toContain('client');
    expect(new Set(names).size).toBe(names.length);
  });

  it('skips a compiled suite whose source is gone when given the source directory', async () => {
    const compiled = path.join(dir, 'compiled');
    const sources = path.join(dir, 'sources');
    await mkdir(compiled);
    await mkdir(sources);
    const suiteModule = (name: string) => `export const suite = { name: '${name}', run: async () => [] };\n`;
    await writeFile(path.join(compiled, 'kept.ts'), suiteModule('kept'));
    await writeFile(path.join(compiled, 'stale.ts'), suiteModule('stale'));
    await writeFile(path.join(sources, 'kept.ts'), '');
    const names = async (from?: string) =>
      (await loadSuiteDirectory(compiled, from)).map((found) => found.name);
    expect(await names()).toEqual(['kept', 'stale']);
    expect(await names(sources)).toEqual(['kept']);
  });

  it('refuses to time an isolated suite without compiled workers, or one from no module file', async () => {
    const fromSource = environment();
    delete fromSource.io.loadSuites; // the real bench/suites/, loaded here from source
    expect(await runBench(['--only', 'resp-encode', '--out', out], fromSource.io)).toBe(1);
    expect(fromSource.captured.stderr).toContain('run the compiled runner (npm run bench)');

    const isolated: BenchSuite = {
      name: 'loose',
      plan: () => [{ name: 'case A', contenders: ['respire'] }],
      prepare: async () => ({ runFor: () => ({ passes: 1, elapsedMs: 1 }), units: [] }),
    };
    const injected = environment({
      loadSuites: async () => [isolated],
      worker: { script: '/nonexistent/worker.js', execArgv: [] },
    });
    expect(await runBench(['--out', out], injected.io)).toBe(1);
    expect(injected.captured.stderr).toContain('loose was not loaded from a suite module');
  });

  it('refuses an unknown suite or flag with usage and exit code 2', async () => {
    const unknownSuite = environment({ loadSuites: async () => [suite('demo', () => [])] });
    expect(await runBench(['--only', 'nope', '--out', out], unknownSuite.io)).toBe(2);
    expect(unknownSuite.captured.stderr).toContain('unknown suite nope; available: demo');

    const unknownFlag = environment({ loadSuites: async () => [] });
    expect(await runBench(['--fast'], unknownFlag.io)).toBe(2);
    expect(unknownFlag.captured.stderr).toContain('usage:');
  });

  it('accepts --only in both spellings and repeated', () => {
    expect(parseArguments(['--only=a,b', '--only', 'c', '--quick']).only).toEqual(['a', 'b', 'c']);
    expect(parseArguments([]).only).toBeUndefined();
    expect(() => parseArguments(['--only'])).toThrow('--only needs a value');
  });
});

describe('latest.json', () => {
  const previous: BenchReport = {
    results: [row('other', 'respire', 1), row('demo', 'respire', 2), row('other', 'peer', 3)],
    meta: { node: 'v0', cpu: 'old', date: '2000-01-01T00:00:00.000Z', command: 'npm run bench' },
  };

  it('keeps the rows of suites that did not run when --only is given', async () => {
    await writeFile(out, JSON.stringify(previous));
    const { io } = environment({
      loadSuites: async () => [suite('demo', () => [row('demo', 'respire', 20), row('demo', 'peer', 10)])],
    });
    expect(await runBench(['--only', 'demo', '--out', out], io)).toBe(0);
    const written = JSON.parse(await readFile(out, 'utf8')) as BenchReport;
    expect(written.results).toEqual([
      row('other', 'respire', 1),
      row('other', 'peer', 3),
      row('demo', 'respire', 20),
      row('demo', 'peer', 10),
    ]);
    expect(written.meta.command).toBe(`npm run bench -- --only demo --out ${out}`);
  });

  it('keeps a failed suite’s old rows, reports the failure and exits 1', async () => {
    await writeFile(out, JSON.stringify(previous));
    const { io, captured } = environment({
      loadSuites: async () => [
        suite('other', () => [row('other', 'respire', 5)]),
        suite('demo', () => {
          throw new Error('peer decoded 0 replies');
        }),
      ],
    });
    expect(await runBench(['--out', out], io)).toBe(1);
    expect(captured.stderr).toContain('demo failed: Error: peer decoded 0 replies');
    const written = JSON.parse(await readFile(out, 'utf8')) as BenchReport;
    expect(written.results).toEqual([row('other', 'respire', 5), row('demo', 'respire', 2)]);
  });
});

describe('BenchContext.redisUrl()', () => {
  it('uses REDIS_URL when set and starts nothing', async () => {
    const urls: string[] = [];
    const { io, captured } = environment({
      env: { REDIS_URL: 'redis://127.0.0.1:6390' },
      loadSuites: async () => [
        suite('needs-server', async (context) => {
          urls.push(await context.redisUrl());
          return [row('needs-server', 'respire', 1)];
        }),
      ],
    });
    expect(await runBench(['--out', out], io)).toBe(0);
    expect(urls).toEqual(['redis://127.0.0.1:6390']);
    expect(captured.serverStarts).toBe(0);
  });

  it('starts one server for every suite that asks and stops it even when a suite throws', async () => {
    const events: string[] = [];
    const { io, captured } = environment({
      startServer: async () => {
        events.push('start');
        return { url: 'redis://127.0.0.1:7000', stop: async () => void events.push('stop') };
      },
      loadSuites: async () => [
        suite('first', async (context) => {
          events.push(await context.redisUrl(), await context.redisUrl());
          return [row('first', 'respire', 1)];
        }),
        suite('second', async (context) => {
          events.push(await context.redisUrl());
          throw new Error('lost the server');
        }),
      ],
    });
    expect(await runBench(['--out', out], io)).toBe(1);
    expect(events).toEqual([
      'start',
      'redis://127.0.0.1:7000',
      'redis://127.0.0.1:7000',
      'redis://127.0.0.1:7000',
      'stop',
    ]);
    expect(captured.stderr).toContain('started a local redis-server at redis://127.0.0.1:7000');
  });

  it('starts a real redis-server through the test kit by default and stops it at the end', async () => {
    let port = 0;
    let pong = '';
    const { io, captured } = environment({
      loadSuites: async () => [
        suite('ping', async (context) => {
          const url = new URL(await context.redisUrl());
          port = Number(url.port);
          const connection = await RawConnection.open({ host: url.hostname, port });
          pong = (await connection.request([['PING']])).toString();
          connection.socket.destroy();
          return [row('ping', 'respire', 1)];
        }),
      ],
    });
    delete io.startServer; // the runner's default: the test kit
    expect(await runBench(['--out', out], io)).toBe(0);
    expect(pong).toBe('+PONG\r\n');
    expect(captured.stderr).toContain('stopped the local redis-server');
    await expect(RawConnection.open({ host: '127.0.0.1', port })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});

describe('BenchContext.redisCluster()', () => {
  const NODES = [
    { host: '127.0.0.1', port: 7001, role: 'primary' as const, slots: [[0, 16383] as const] },
    { host: '127.0.0.1', port: 7002, role: 'replica' as const, slots: [] },
  ];

  it('is never started for suites that do not ask', async () => {
    const { io, captured } = environment({
      loadSuites: async () => [suite('plain', () => [row('plain', 'respire', 1)])],
    });
    expect(await runBench(['--out', out], io)).toBe(0);
    expect(captured.clusterStarts).toBe(0);
  });

  it('starts one cluster for every suite that asks, gives its nodes as plain data, stops it even when a suite throws', async () => {
    const events: unknown[] = [];
    const { io, captured } = environment({
      startCluster: async () => {
        events.push('start');
        return { nodes: NODES, stop: async () => void events.push('stop') };
      },
      loadSuites: async () => [
        suite('first', async (context) => {
          events.push(await context.redisCluster(), await context.redisCluster());
          return [row('first', 'respire', 1)];
        }),
        suite('second', async (context) => {
          events.push(await context.redisCluster());
          throw new Error('lost the cluster');
        }),
      ],
    });
    expect(await runBench(['--out', out], io)).toBe(1);
    // Plain data (no stop()), so it crosses to a worker process as it is.
    expect(events).toEqual(['start', { nodes: NODES }, { nodes: NODES }, { nodes: NODES }, 'stop']);
    expect(captured.stderr).toContain('started a local Redis Cluster at 127.0.0.1:7001, 127.0.0.1:7002');
    expect(captured.stderr).toContain('stopped the local Redis Cluster');
    expect(captured.serverStarts).toBe(0);
  });

  it('fails only the suite that asked when the cluster cannot start', async () => {
    const { io, captured } = environment({
      loadSuites: async () => [
        suite('needs-cluster', async (context) => {
          await context.redisCluster();
          return [row('needs-cluster', 'respire', 1)];
        }),
        suite('plain', () => [row('plain', 'respire', 1)]),
      ],
    });
    expect(await runBench(['--out', out], io)).toBe(1);
    expect(captured.stderr).toContain('needs-cluster failed: Error: this run must not start a cluster');
    expect(captured.stderr).not.toContain('stopped the local Redis Cluster');
    expect(JSON.parse(await readFile(out, 'utf8')).results).toEqual([row('plain', 'respire', 1)]);
  });
});
