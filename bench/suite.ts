// The contract between the benchmark runner (`bench/run.ts`) and each suite in `bench/suites/`.
//
// A suite that compares Respire with a peer is an `IsolatedSuite`: every contender is set up and
// timed in a process of its own, so nothing a peer loads can slow Respire down or speed it up.
// (ioredis defines `class VerbatimString extends String`; on Node 20 that alone turns
// String.prototype into a dictionary and makes every `charCodeAt` in the process several times
// slower.) A suite with no peer may be an `InProcessSuite` and run inside the runner's process.

/** One measured figure; the rows of `bench/results/latest.json`. */
export interface BenchResult {
  /** The suite's name, e.g. `resp-decode`. */
  suite: string;
  /** What was measured, e.g. `mixed small replies`. */
  case: string;
  /** Who was measured: `respire`, a peer (`redis-parser`, `ioredis`, …) or a floor/ceiling. */
  client: string;
  value: number;
  /** e.g. `ops/s`, `MB/s`, `ns/op`, `bytes`. Higher-is-better units end in `/s`. */
  unit: string;
}

export interface BenchContext {
  /** `redis://host:port` of a server the suite may use (started by the runner when not given). */
  redisUrl(): Promise<string>;
  /** A local Redis Cluster the suite may use, started by the runner on the first call and stopped at the end. */
  redisCluster(): Promise<BenchCluster>;
  /** Shorter runs (`--quick`), for smoke tests of the runner itself. */
  quick: boolean;
  /** Progress output (stderr), never part of the table. */
  log(line: string): void;
}

/** A node of `redisCluster()`, as the cluster agreed when it started; plain data, sent to workers. */
export interface BenchClusterNode {
  host: string;
  port: number;
  role: 'primary' | 'replica';
  /** The slots a primary serves, as inclusive ranges (empty for replicas). */
  slots: readonly (readonly [number, number])[];
}

export interface BenchCluster {
  nodes: readonly BenchClusterNode[];
}

/**
 * The host and port of a `redisUrl()`. REDIS_URL may leave the port out (`redis://localhost`):
 * Redis's own port then, as redis-cli and every client take it.
 */
export function redisEndpoint(url: string): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port || 6379) };
}

/** A suite that measures inside the runner's process: only for suites that load no peer. */
export interface InProcessSuite {
  name: string;
  run(context: BenchContext): Promise<BenchResult[]>;
}

/** How long the runner times each contender of a case (bench/measure.ts has the defaults). */
export interface MeasureOptions {
  /** Untimed running per contender before the first round, so every function is optimised. */
  warmupMs: number;
  /** Timed rounds per contender; the median is reported. Odd counts give a true median. */
  rounds: number;
  /** Length of one round; a round always runs at least one pass. */
  roundMs: number;
}

/** One case of an isolated suite, as the runner's process sees it: names only. */
export interface CasePlan {
  name: string;
  /** Contender names, each measured in its own process; rows come out in this order. */
  contenders: readonly string[];
  /** Overrides `measureOptions(quick)` for this case. */
  measure?: MeasureOptions;
}

/** What one round of passes took. */
export interface Round {
  passes: number;
  elapsedMs: number;
  /** CPU time the contender's process used in the round (all its threads, user and system). */
  cpuMs?: number;
}

/** One reported unit of a contender: its value is the median passes per second × `perPass`. */
export interface UnitPerPass {
  /** e.g. `replies/s`. */
  unit: string;
  /** What one pass is worth in that unit's numerator (replies, MB, commands, …). */
  perPass: number;
}

/** A contender built in its worker process, already checked once, ready to be timed. */
export interface PreparedContender {
  /**
   * Runs passes for at least `durationMs` (always at least one) and says how many ran in how long.
   * `syncPasses`/`asyncPasses` in bench/measure.ts build it from a single pass.
   */
  runFor(durationMs: number): Round | Promise<Round>;
  units: readonly UnitPerPass[];
  /**
   * Also report the process's CPU time per unit of work, as `unit` (e.g. `CPU µs/op`, with
   * `perPass` ops a pass): what the client itself costs, apart from waiting on the server, and
   * far steadier than a rate on a machine shared with other work.
   */
  cpuPerPass?: UnitPerPass;
  /** After the last round, given every pass run (warm-up included): throws if the work was wrong. */
  check?(passes: number): void | Promise<void>;
  /** Releases what the contender holds (connections, child processes). */
  close?(): void | Promise<void>;
}

/** A suite whose contenders are set up and timed each in its own process (bench/isolation.ts). */
export interface IsolatedSuite {
  name: string;
  /**
   * The cases and contenders to measure. Runs in the runner's process, which measures nothing
   * itself but must still load no peer: peers are imported only inside `prepare`.
   */
  plan(context: BenchContext): CasePlan[] | Promise<CasePlan[]>;
  /**
   * Runs in the contender's own worker process: imports what this one contender needs, checks its
   * output once, untimed (throwing when it is wrong), and returns what to time.
   */
  prepare(caseName: string, contender: string, context: BenchContext): Promise<PreparedContender>;
  /**
   * Runs in the runner's process once every case is measured, with their rows; returns the suite's
   * rows: those, and any it derives from them (a ratio) or measures itself (a scenario).
   */
  finish?(rows: BenchResult[], context: BenchContext): Promise<BenchResult[]>;
}

export type BenchSuite = InProcessSuite | IsolatedSuite;

export function isIsolatedSuite(suite: BenchSuite): suite is IsolatedSuite {
  return typeof (suite as IsolatedSuite).plan === 'function';
}
