// `npm run simulate -- --seeds 100000` (issue 16): runs many seeds with a progress bar and a
// summary; `--seed N` replays one seed and prints its whole trace; `--start S` picks the first
// seed, `--ops N` the operations per run, `--mode cluster|sentinel` the world (standalone by
// default), `--stop` stops at the first failure. Exits 1 when any seed broke an invariant.
import { failureReport } from './report.js';
import { runSeed } from './run.js';
import { MODES, type Mode } from './worlds.js';

interface CliOptions {
  seeds: number;
  start: number;
  seed: number | undefined;
  ops: number | undefined;
  /** Failures printed in full; the rest are only listed in the summary. */
  show: number;
  /** Stop at the first failing seed (how many seeds a planted bug takes to be found). */
  stop: boolean;
  mode: Mode;
}

function parse(argv: readonly string[]): CliOptions {
  const options: CliOptions = {
    seeds: 1000,
    start: 1,
    seed: undefined,
    ops: undefined,
    show: 3,
    stop: false,
    mode: 'standalone',
  };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    if (name === '--stop') {
      options.stop = true;
      continue;
    }
    if (name === '--mode') {
      const mode = argv[++i] as Mode;
      if (!MODES.includes(mode)) throw new Error(`--mode needs one of ${MODES.join(', ')}, got ${mode}`);
      options.mode = mode;
      continue;
    }
    const value = Number(argv[++i]);
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`${name} needs a whole number, got ${argv[i]}`);
    if (name === '--seeds') options.seeds = value;
    else if (name === '--start') options.start = value;
    else if (name === '--seed') options.seed = value;
    else if (name === '--ops') options.ops = value;
    else if (name === '--show') options.show = value;
    else
      throw new Error(
        `unknown option ${name} (--seeds N, --start S, --seed N, --ops N, --show N, --mode M, --stop)`,
      );
  }
  return options;
}

async function main(): Promise<number> {
  const options = parse(process.argv.slice(2));
  const runOptions =
    options.ops === undefined ? { mode: options.mode } : { ops: options.ops, mode: options.mode };
  if (options.seed !== undefined) {
    const result = await runSeed(options.seed, runOptions);
    if (result.violations.length === 0) {
      console.log(result.trace.join('\n'));
      console.log(
        `seed ${options.seed}: every invariant held (${result.ops} operations, ${result.events} events)`,
      );
      return 0;
    }
    console.log(failureReport(result, options.ops, Number.POSITIVE_INFINITY));
    return 1;
  }
  const failed: number[] = [];
  const started = Date.now();
  let ops = 0;
  let events = 0;
  let end = options.start + options.seeds;
  for (let seed = options.start; seed < end; seed++) {
    const result = await runSeed(seed, runOptions);
    ops += result.ops;
    events += result.events;
    if (result.violations.length > 0) {
      failed.push(seed);
      if (failed.length <= options.show) process.stderr.write(`\n${failureReport(result, options.ops)}\n`);
    }
    const done = seed - options.start + 1;
    if (done % 25 === 0 || done === options.seeds) progress(done, options.seeds, failed.length, started);
    if (options.stop && failed.length > 0) {
      end = seed + 1;
      break;
    }
  }
  process.stderr.write('\n');
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `${end - options.start} seeds (${options.start}..${end - 1}) in ${seconds.toFixed(1)} s: ${ops} operations, ${events} events; ` +
      (failed.length === 0
        ? 'every invariant held'
        : `${failed.length} failed: ${failed.slice(0, 50).join(' ')}`),
  );
  return failed.length === 0 ? 0 : 1;
}

function progress(done: number, total: number, failures: number, started: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
  const eta = (total - done) / rate;
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} seeds, ${failures} failed, ${rate.toFixed(0)}/s, ${eta.toFixed(0)} s left `,
  );
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 2;
  },
);
