// Messages between the runner (bench/isolation.ts) and a contender's worker process
// (bench/worker.ts), sent over the IPC channel of `child_process.fork`.
import type { BenchCluster, UnitPerPass } from './suite.js';

/** What a worker saw of its own process: the evidence that it measured its contender alone. */
export interface IsolationReport {
  /** Packages loaded from node_modules (for Respire's contenders this must be empty). */
  packages: string[];
  /**
   * Whether String.prototype still has fast properties. A `class … extends String` anywhere in the
   * process (ioredis's VerbatimString) turns it into a dictionary, and string reads slow down.
   */
  stringPrototypeFast: boolean;
}

/** Runner to worker; the worker answers each before the runner sends the next. */
export type ToWorker =
  /** Build the contender for this case, checked once untimed; answered by `ready`. */
  | { type: 'prepare'; caseName: string }
  /** Time passes for at least `durationMs`; answered by `ran`. */
  | { type: 'run'; durationMs: number }
  /** The case is over: check the work of every pass, release the case; answered by `checked`. */
  | { type: 'check' }
  /** No more cases: answer `done` and exit. */
  | { type: 'finish' }
  /** The answer to `need-redis-url`, at any time. */
  | { type: 'redis-url'; url: string }
  | { type: 'redis-url'; error: string }
  /** The answer to `need-redis-cluster`, at any time. */
  | { type: 'redis-cluster'; cluster: BenchCluster }
  | { type: 'redis-cluster'; error: string };

/** Worker to runner. */
export type FromWorker =
  /** The suite module is imported; sent once, unasked. */
  | { type: 'loaded' }
  | { type: 'ready'; units: UnitPerPass[]; cpuPerPass: UnitPerPass | undefined }
  | { type: 'ran'; passes: number; elapsedMs: number; cpuMs: number }
  | { type: 'checked' }
  | { type: 'done'; isolation: IsolationReport }
  | { type: 'failed'; error: string }
  | { type: 'log'; line: string }
  | { type: 'need-redis-url' }
  | { type: 'need-redis-cluster' };

/** Command-line arguments of bench/worker.ts: one contender of one suite, for all its cases. */
export interface WorkerArguments {
  /** Path of the module that exports the suite. */
  module: string;
  suite: string;
  contender: string;
  quick: boolean;
}

export function workerArgv(args: WorkerArguments): string[] {
  return [
    '--module',
    args.module,
    '--suite',
    args.suite,
    '--contender',
    args.contender,
    ...(args.quick ? ['--quick'] : []),
  ];
}

export function parseWorkerArgv(argv: readonly string[]): WorkerArguments {
  const values = new Map<string, string>();
  let quick = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--quick') {
      quick = true;
      continue;
    }
    const value = argv[++i];
    if (!flag.startsWith('--') || value === undefined) throw new Error(`bad worker argument ${flag}`);
    values.set(flag.slice(2), value);
  }
  const get = (name: string): string => {
    const value = values.get(name);
    if (value === undefined) throw new Error(`worker needs --${name}`);
    return value;
  };
  return { module: get('module'), suite: get('suite'), contender: get('contender'), quick };
}
