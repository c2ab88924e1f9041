// The server's ceiling for the `client` suite: `redis-benchmark -c 1 -P <depth>` (one connection,
// that many commands in flight) against the same server, timed a round at a time like any
// contender. A C client with next to no cost per command: what is left is the server and the
// round trip, the bound no Node client can pass.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Round, redisEndpoint } from '../suite.js';

const run = promisify(execFile);

/** The redis-benchmark binary on PATH (it ships with Debian's redis-tools), or undefined. */
export function findRedisBenchmark(searchPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'redis-benchmark');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

export interface RedisBenchmarkOptions {
  binary: string;
  url: string;
  /** `get` or `set`: one test per invocation. */
  test: 'get' | 'set';
  /** Requests per invocation (`-n`). */
  requests: number;
  /** Value size in bytes (`-d`). */
  valueBytes: number;
  /** Commands in flight on the connection (`-P`). */
  pipeline: number;
}

/** The argument list of one invocation; also printed in the report, so the ceiling can be rerun. */
export function redisBenchmarkArgs(options: RedisBenchmarkOptions): string[] {
  const { host, port } = redisEndpoint(options.url);
  return [
    ...['-h', host, '-p', String(port), '-c', '1', '-P', String(options.pipeline)],
    ...['-t', options.test, '-n', String(options.requests), '-d', String(options.valueBytes), '--csv'],
  ];
}

/** Requests per second of the one test in redis-benchmark's `--csv` output. */
export function parseRequestsPerSecond(csv: string, test: string): number {
  for (const line of csv.split('\n')) {
    const fields = line.split(',').map((field) => field.replace(/^"|"$/g, ''));
    if (fields[0] === test.toUpperCase()) {
      const rps = Number(fields[1]);
      if (Number.isFinite(rps) && rps > 0) return rps;
    }
  }
  throw new Error(`redis-benchmark printed no ${test.toUpperCase()} rate:\n${csv}`);
}

/**
 * `PreparedContender.runFor` for the ceiling: invocations until `durationMs` has passed (at least
 * one). Each counts as `requests` passes in the time redis-benchmark measured for them, so its
 * own start-up is not charged to the server.
 */
export function redisBenchmarkRounds(options: RedisBenchmarkOptions): (durationMs: number) => Promise<Round> {
  const args = redisBenchmarkArgs(options);
  return async (durationMs) => {
    const start = performance.now();
    const round: Round = { passes: 0, elapsedMs: 0 };
    do {
      const { stdout } = await run(options.binary, args);
      round.passes += options.requests;
      round.elapsedMs += (options.requests * 1000) / parseRequestsPerSecond(stdout, options.test);
    } while (performance.now() - start < durationMs);
    return round;
  };
}
