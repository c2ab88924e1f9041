// `npm run bench`: loads every suite in bench/suites/, runs the chosen ones, prints a table (or
// JSON) on stdout and writes bench/results/latest.json. Progress goes to stderr.
//
// A suite is a module in bench/suites/ that exports a `BenchSuite` (bench/suite.ts), as its default
// export or a named one; the runner finds it there, so adding a suite touches no list. Isolated
// suites have each contender timed in a worker process of its own (bench/isolation.ts); this
// process only plans, collects and reports, and never loads a peer.
//
// Suites that ask for a Redis Cluster (`BenchContext.redisCluster()`) get a local one of three
// primaries and three replicas, started on the first call and stopped when the run ends.
//
// Environment: REDIS_URL uses that server instead of starting one; BENCH_WORKER_NODE_ARGS passes
// node flags to the workers, e.g. `--cpu-prof --cpu-prof-dir=prof` for one profile per contender;
// BENCH_RESPIRE_COMMAND_TIMEOUT sets the `client` suite's Respire commandTimeout (its tests' room).
//
// Scenario suites (`runsLast: true`, such as the outage scenario) run after the throughput suites
// when no `--only` is given; `--blip <seconds>` sets the outage scenario's blip (RunSettings).
//
// `--markdown` prints the tables the README's are pasted from (bench/markdown.ts) instead of the
// text table; `--compare <file>` adds each figure's ratio to an earlier latest.json
// (bench/compare.ts); `--no-run` takes the rows from the `--out` file instead of running suites.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compareResults, formatComparison } from './compare.js';
import { runIsolatedSuite, type WorkerLauncher } from './isolation.js';
import { formatMarkdown } from './markdown.js';
import { type BenchReport, describeRun, formatTables, readReport, writeReport } from './report.js';
import {
  type BenchCluster,
  type BenchContext,
  type BenchResult,
  type BenchSuite,
  isIsolatedSuite,
} from './suite.js';

export interface RunOptions {
  /** Suite names from `--only a,b`; `undefined` runs every suite. */
  only: string[] | undefined;
  quick: boolean;
  json: boolean;
  /** Where the results are written; `--out <file>`, default bench/results/latest.json. */
  out: string;
  /** `--blip <seconds>`: how long the outage scenario black-holes Redis (its default when unset). */
  blipSeconds: number | undefined;
  /** `--markdown`: print markdown tables (bench/markdown.ts) instead of the text table. */
  markdown: boolean;
  /** `--compare <file>`: an earlier latest.json whose figures each figure is divided by. */
  compare: string | undefined;
  /** `--no-run`: report the rows of the `--out` file instead of running suites. */
  noRun: boolean;
}

/**
 * What suites get beside BenchContext: settings only some suites read, and where results go
 * (a suite that writes more than rows, like the outage chart, writes it beside `--out`).
 */
export interface RunSettings {
  blipSeconds: number | undefined;
  /** The directory of `--out`. */
  resultsDir: string;
}

/** A suite that runs after all others when every suite runs (a scenario after the throughput suites). */
interface OrderedSuite {
  runsLast?: boolean;
}

/** A server the runner started for the suites; stopped when the run ends. */
export interface StartedServer {
  url: string;
  stop(): Promise<void>;
}

/** A cluster the runner started for the suites; stopped when the run ends. */
export interface StartedCluster extends BenchCluster {
  stop(): Promise<void>;
}

/** Everything the runner touches outside itself, replaceable in tests. */
export interface RunEnvironment {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Default: bench/suites/ next to this module. */
  loadSuites(): Promise<BenchSuite[]>;
  /** Default: the test kit's `startRedisServer` (test/kit/redis-server.ts). */
  startServer(): Promise<StartedServer>;
  /** Default: the test kit's `startRedisCluster` (test/kit/redis-cluster.ts), 3 primaries, 3 replicas. */
  startCluster(): Promise<StartedCluster>;
  now(): Date;
  /**
   * How isolated suites start their workers. Default: the compiled bench/worker.js beside this
   * module, with the node flags in `BENCH_WORKER_NODE_ARGS` (e.g. `--cpu-prof`); none when this
   * module runs from source, where only in-process suites can run.
   */
  worker: WorkerLauncher | undefined;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXTENSION = path.extname(fileURLToPath(import.meta.url));
/** The repository root: the nearest directory above this module with a package.json. */
const ROOT = findRoot(HERE);
export const DEFAULT_RESULTS_PATH = path.join(ROOT, 'bench', 'results', 'latest.json');

const USAGE =
  'usage: npm run bench -- [--only <suite>[,<suite>…]] [--quick] [--json | --markdown] [--out <file>] [--blip <seconds>] [--compare <file>] [--no-run]';

export function parseArguments(argv: readonly string[]): RunOptions {
  const options: RunOptions = {
    only: undefined,
    quick: false,
    json: false,
    out: DEFAULT_RESULTS_PATH,
    blipSeconds: undefined,
    markdown: false,
    compare: undefined,
    noRun: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const [name, inline] = flag.startsWith('--') && flag.includes('=') ? flag.split(/=(.*)/s) : [flag];
    const value = (): string => {
      const given = inline ?? argv[++i];
      if (given === undefined || given === '') throw new UsageError(`${name} needs a value`);
      return given;
    };
    switch (name) {
      case '--only':
        options.only = [
          ...(options.only ?? []),
          ...value()
            .split(',')
            .filter((suite) => suite !== ''),
        ];
        break;
      case '--quick':
        options.quick = true;
        break;
      case '--json':
        options.json = true;
        break;
      case '--out':
        options.out = path.resolve(value());
        break;
      case '--markdown':
        options.markdown = true;
        break;
      case '--compare':
        options.compare = path.resolve(value());
        break;
      case '--no-run':
        options.noRun = true;
        break;
      case '--blip': {
        const given = value();
        const seconds = Number(given);
        if (!(Number.isFinite(seconds) && seconds > 0)) {
          throw new UsageError(`--blip needs a positive number of seconds, got ${given}`);
        }
        options.blipSeconds = seconds;
        break;
      }
      default:
        throw new UsageError(`unknown argument ${flag}`);
    }
  }
  if (options.json && options.markdown)
    throw new UsageError('--json and --markdown are two outputs: give one');
  return options;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Runs the benchmark; resolves to the process exit code (0, 1 when a suite failed, 2 on bad usage). */
export async function runBench(
  argv: readonly string[],
  environment: Partial<RunEnvironment> = {},
): Promise<number> {
  const io: RunEnvironment = { ...defaultEnvironment(), ...environment };
  let options: RunOptions;
  let selected: BenchSuite[];
  let earlier: BenchReport | undefined;
  try {
    options = parseArguments(argv);
    // Read before running, so a wrong path costs nothing.
    earlier = options.compare === undefined ? undefined : await reportAt(options.compare);
    if (options.noRun) return await reportOnly(options, earlier, io);
    selected = selectSuites(await io.loadSuites(), options.only);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${error.message}\n${USAGE}\n`);
    return 2;
  }

  const servers = new LazyServer(io);
  const clusters = new Lazily(io.startCluster, io.stderr, {
    started: (cluster) =>
      `started a local Redis Cluster at ${cluster.nodes.map((node) => `${node.host}:${node.port}`).join(', ')}`,
    stopped: 'stopped the local Redis Cluster',
  });
  const context: BenchContext & RunSettings = {
    redisUrl: () => servers.url(),
    redisCluster: async () => {
      const { nodes } = await clusters.get();
      return { nodes };
    },
    quick: options.quick,
    log: (line) => io.stderr(`${line}\n`),
    blipSeconds: options.blipSeconds,
    resultsDir: path.dirname(options.out),
  };
  const results: BenchResult[] = [];
  const failed: string[] = [];
  try {
    for (const suite of selected) {
      context.log(`running ${suite.name}${options.quick ? ' (quick)' : ''}`);
      const started = performance.now();
      try {
        const rows = await runSuite(suite, context, io);
        results.push(...rows.map((row) => ({ ...row, suite: suite.name })));
        context.log(`${suite.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      } catch (error) {
        failed.push(suite.name);
        context.log(
          `${suite.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      }
    }
  } finally {
    await servers.stop();
    await clusters.stop();
  }

  const command = ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' ');
  const report = describeRun(results, command, io.now());
  printReport(report, options, earlier, io);
  if (results.length > 0) {
    // Rows of suites that failed or did not run are kept from the previous file.
    await writeReport(options.out, report, options.only !== undefined || failed.length > 0);
    context.log(`wrote ${path.relative(process.cwd(), options.out) || options.out}`);
  }
  if (failed.length > 0) context.log(`failed suites: ${failed.join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

/** The report at `file` for `--compare` and `--no-run`; a missing file is a usage error. */
async function reportAt(file: string): Promise<BenchReport> {
  const report = await readReport(file);
  if (report === undefined) throw new UsageError(`no benchmark report at ${file}`);
  return report;
}

/** `--no-run`: the rows of the `--out` file (those of `--only`'s suites, when given), printed. */
async function reportOnly(
  options: RunOptions,
  earlier: BenchReport | undefined,
  io: RunEnvironment,
): Promise<number> {
  const saved = await reportAt(options.out);
  const results = saved.results.filter(
    (row) => options.only === undefined || options.only.includes(row.suite),
  );
  printReport({ ...saved, results }, options, earlier, io);
  return 0;
}

function printReport(
  report: BenchReport,
  options: RunOptions,
  earlier: BenchReport | undefined,
  io: RunEnvironment,
): void {
  const { results } = report;
  if (options.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(`${options.markdown ? formatMarkdown(results) : formatTables(results)}\n`);
  if (earlier !== undefined) {
    const label = `${options.compare} of ${earlier.meta?.date ?? 'an unknown date'}`;
    // Beside JSON it goes to stderr, so that stdout stays one JSON document.
    const write = options.json ? io.stderr : io.stdout;
    write(`\n${formatComparison(compareResults(earlier.results, results), label)}\n`);
  }
}

async function runSuite(
  suite: BenchSuite,
  context: BenchContext,
  io: RunEnvironment,
): Promise<BenchResult[]> {
  if (!isIsolatedSuite(suite)) return suite.run(context);
  const module = suiteModules.get(suite);
  if (module === undefined) throw new Error(`${suite.name} was not loaded from a suite module`);
  if (io.worker === undefined) {
    throw new Error(
      `${suite.name} times contenders in worker processes: run the compiled runner (npm run bench)`,
    );
  }
  const rows = await runIsolatedSuite(suite, module, context, io.worker);
  return suite.finish === undefined ? rows : suite.finish(rows, context);
}

function selectSuites(suites: BenchSuite[], only: string[] | undefined): BenchSuite[] {
  if (only === undefined) {
    const last = (suite: BenchSuite) => (suite as OrderedSuite).runsLast === true;
    return [...suites.filter((suite) => !last(suite)), ...suites.filter(last)];
  }
  const byName = new Map(suites.map((suite) => [suite.name, suite]));
  const unknown = only.filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown suite ${unknown.join(', ')}; available: ${[...byName.keys()].join(', ') || 'none'}`,
    );
  }
  return [...new Set(only)].map((name) => byName.get(name)!);
}

/**
 * `BenchContext.redisUrl()`: `REDIS_URL` when set, otherwise one local redis-server started on the
 * first call (never for runs whose suites do not ask) and shared by every later suite.
 */
class LazyServer {
  private readonly local: Lazily<StartedServer>;

  constructor(private readonly io: RunEnvironment) {
    this.local = new Lazily(io.startServer, io.stderr, {
      started: (server) => `started a local redis-server at ${server.url} (set REDIS_URL to use another)`,
      stopped: 'stopped the local redis-server',
    });
  }

  async url(): Promise<string> {
    const given = this.io.env.REDIS_URL;
    if (given !== undefined && given !== '') return given;
    return (await this.local.get()).url;
  }

  stop(): Promise<void> {
    return this.local.stop();
  }
}

/** Something started on the first call only, shared by every later one, and stopped at the end. */
class Lazily<T extends { stop(): Promise<void> }> {
  private started: Promise<T> | undefined;

  constructor(
    private readonly start: () => Promise<T>,
    private readonly stderr: (text: string) => void,
    private readonly say: { started(value: T): string; stopped: string },
  ) {}

  get(): Promise<T> {
    this.started ??= this.start().then((value) => {
      this.stderr(`${this.say.started(value)}\n`);
      return value;
    });
    return this.started;
  }

  async stop(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    if (started === undefined) return;
    // What failed to start has nothing to stop; its error already reached the suite.
    const value = await started.catch(() => undefined);
    if (value === undefined) return;
    await value.stop();
    this.stderr(`${this.say.stopped}\n`);
  }
}

function defaultEnvironment(): RunEnvironment {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    loadSuites: () =>
      loadSuiteDirectory(
        path.join(HERE, 'suites'),
        // `npm run bench` compiles into build/ without emptying it, so a suite deleted or renamed
        // in bench/suites/ would live on there: only compiled suites with a source still count.
        HERE === path.join(ROOT, 'build', 'bench') ? path.join(ROOT, 'bench', 'suites') : undefined,
      ),
    startServer: async () => {
      const { startRedisServer } = await import('../test/kit/redis-server.js');
      return startRedisServer();
    },
    startCluster: async () => {
      const { startRedisCluster } = await import('../test/kit/redis-cluster.js');
      const cluster = await startRedisCluster();
      return {
        nodes: cluster.nodes.map(({ host, port, role, slots }) => ({ host, port, role, slots })),
        stop: () => cluster.stop(),
      };
    },
    now: () => new Date(),
    worker:
      EXTENSION === '.js'
        ? {
            script: path.join(HERE, 'worker.js'),
            execArgv: (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
          }
        : undefined,
  };
}

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(start, '..');
  }
}

/** The file each loaded suite came from: an isolated suite's workers import it again. */
const suiteModules = new WeakMap<BenchSuite, string>();

/**
 * Imports every module in `directory` with this module's own extension (`.js` compiled, `.ts`
 * under vitest) and collects the BenchSuites they export, in file-name order. With `sources`, a
 * compiled module counts only while its `.ts` source is still in that directory.
 */
export async function loadSuiteDirectory(directory: string, sources?: string): Promise<BenchSuite[]> {
  const files = (await readdir(directory))
    .filter((file) => file.endsWith(EXTENSION) && !file.endsWith(`.d${EXTENSION}`))
    .filter((file) => sources === undefined || existsSync(path.join(sources, `${path.parse(file).name}.ts`)))
    .sort();
  const suites: BenchSuite[] = [];
  for (const file of files) {
    const modulePath = path.join(directory, file);
    const exports = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
    for (const candidate of new Set(Object.values(exports))) {
      if (!isBenchSuite(candidate) || suites.includes(candidate)) continue;
      suites.push(candidate);
      suiteModules.set(candidate, modulePath);
    }
  }
  const names = suites.map((suite) => suite.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new Error(`two suites in ${directory} are named ${duplicate}`);
  return suites;
}

function isBenchSuite(value: unknown): value is BenchSuite {
  if (typeof value !== 'object' || value === null) return false;
  const suite = value as { name?: unknown; run?: unknown; plan?: unknown; prepare?: unknown };
  return (
    typeof suite.name === 'string' &&
    (typeof suite.run === 'function' ||
      (typeof suite.plan === 'function' && typeof suite.prepare === 'function'))
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runBench(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
