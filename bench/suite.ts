// The contract between the benchmark runner (`bench/run.ts`) and each suite in `bench/suites/`.

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
  /** Shorter runs (`--quick`), for smoke tests of the runner itself. */
  quick: boolean;
  /** Progress output (stderr), never part of the table. */
  log(line: string): void;
}

export interface BenchSuite {
  name: string;
  run(context: BenchContext): Promise<BenchResult[]>;
}
