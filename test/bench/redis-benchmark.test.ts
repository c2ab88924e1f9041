// The ceiling contender's plumbing: finding redis-benchmark, its arguments, reading its CSV, and
// turning its own rates into rounds (run for real against a server when the binary is there).
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findRedisBenchmark,
  parseRequestsPerSecond,
  redisBenchmarkArgs,
  redisBenchmarkRounds,
} from '../../bench/clients/redis-benchmark.js';
import { redisEndpoint } from '../../bench/suite.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const CSV = [
  '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"',
  '"SET","158604.28","0.095","0.016","0.023","0.039","2.511","66.175"',
  '"GET","177304.97","0.085","0.016","0.023","0.039","2.519","20.895"',
].join('\n');

describe('parseRequestsPerSecond', () => {
  it('reads the rate of the test asked for, and refuses output without it', () => {
    expect(parseRequestsPerSecond(CSV, 'get')).toBe(177304.97);
    expect(parseRequestsPerSecond(CSV, 'set')).toBe(158604.28);
    expect(() => parseRequestsPerSecond(CSV, 'incr')).toThrow('redis-benchmark printed no INCR rate');
    expect(() => parseRequestsPerSecond('"GET","0.00"', 'get')).toThrow(/no GET rate/);
  });
});

describe('redisBenchmarkArgs', () => {
  it('asks for one connection, the pipeline depth, the case’s value size and CSV', () => {
    const options = {
      binary: 'redis-benchmark',
      url: 'redis://127.0.0.1:7001',
      test: 'get',
      requests: 200_000,
      valueBytes: 16,
    } as const;
    expect(redisBenchmarkArgs({ ...options, pipeline: 16 }).join(' ')).toBe(
      '-h 127.0.0.1 -p 7001 -c 1 -P 16 -t get -n 200000 -d 16 --csv',
    );
    expect(redisBenchmarkArgs({ ...options, pipeline: 100 }).join(' ')).toBe(
      '-h 127.0.0.1 -p 7001 -c 1 -P 100 -t get -n 200000 -d 16 --csv',
    );
    // A REDIS_URL without a port means Redis's own, here as for every suite (redisEndpoint).
    expect(redisBenchmarkArgs({ ...options, url: 'redis://localhost', pipeline: 1 }).slice(0, 4)).toEqual([
      '-h',
      'localhost',
      '-p',
      '6379',
    ]);
  });
});

describe('redisEndpoint', () => {
  it('gives the host and port of a URL, and 6379 when it names no port', () => {
    expect(redisEndpoint('redis://127.0.0.1:7001')).toEqual({ host: '127.0.0.1', port: 7001 });
    expect(redisEndpoint('redis://localhost')).toEqual({ host: 'localhost', port: 6379 });
  });
});

describe('findRedisBenchmark', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'respire-path-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds an executable on the search path and skips one that is not executable', async () => {
    const notExecutable = path.join(dir, 'plain');
    const executable = path.join(dir, 'exec');
    for (const folder of [notExecutable, executable]) {
      await mkdir(folder);
      await writeFile(path.join(folder, 'redis-benchmark'), '#!/bin/sh\n');
    }
    await chmod(path.join(executable, 'redis-benchmark'), 0o755);
    await chmod(path.join(notExecutable, 'redis-benchmark'), 0o644);
    const searchPath = ['', notExecutable, executable].join(path.delimiter);
    expect(findRedisBenchmark(searchPath)).toBe(path.join(executable, 'redis-benchmark'));
    expect(findRedisBenchmark(notExecutable)).toBeUndefined();
  });
});

const binary = findRedisBenchmark();

describe.runIf(binary !== undefined)('redisBenchmarkRounds against a real server', () => {
  const server = useRedisServer();

  it('counts each invocation as its requests, in the time redis-benchmark measured', async () => {
    const round = await redisBenchmarkRounds({
      binary: binary!,
      url: server.url,
      test: 'set',
      requests: 2_000,
      valueBytes: 16,
      pipeline: 16,
    })(0);
    expect(round.passes).toBe(2_000);
    expect(round.elapsedMs).toBeGreaterThan(0);
    // 2,000 pipelined SETs take far less than a second on any machine that runs these tests.
    expect(round.elapsedMs).toBeLessThan(1_000);
  });
});
