// How a failed seed is told (issue 16 "Running it"): the seed, the one line that replays it
// exactly, what broke, and the trace of events leading up to it.
import type { RunResult } from './run.js';
import type { Mode } from './worlds.js';

/** The command that replays `seed` exactly (the same code path as `npm test` and the CLI). */
export function replayCommand(seed: number, ops: number | undefined, mode: Mode = 'standalone'): string {
  const flags = `${ops === undefined ? '' : ` --ops ${ops}`}${mode === 'standalone' ? '' : ` --mode ${mode}`}`;
  return `npm run simulate -- --seed ${seed}${flags}`;
}

export function failureReport(result: RunResult, ops?: number, traceLines = 80): string {
  return [
    `seed ${result.seed} broke ${result.violations.length} invariant(s):`,
    ...result.violations.map((violation) => `  - ${violation}`),
    `replay: ${replayCommand(result.seed, ops, result.mode)}`,
    `last ${Math.min(traceLines, result.trace.length)} trace lines (simulated ms):`,
    ...result.trace.slice(-traceLines).map((line) => `  ${line}`),
  ].join('\n');
}
