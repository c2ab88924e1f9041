// `npm run bench -- --compare <file>`: how this run's figures differ from an earlier
// `latest.json`, each figure's ratio, so a change's effect on speed is one command away. Figures
// match by suite, case, client and unit; only the suites this run has are compared. Pure
// functions of the rows, so they are tested on fixture JSON.
import { alignColumns, formatValue, higherIsBetter, perSuite } from './report.js';
import type { BenchResult } from './suite.js';

export interface FigureChange {
  suite: string;
  case: string;
  client: string;
  unit: string;
  before: number | undefined;
  after: number | undefined;
  /** `after / before`; undefined when either is missing or `before` is 0. */
  ratio: number | undefined;
}

/** Within this many percent either way a figure is called unchanged (`=`) in the table. */
export const UNCHANGED_PERCENT = 5;

const keyOf = (r: BenchResult): string => [r.suite, r.case, r.client, r.unit].join('\u0000');

/**
 * Each figure of `after` beside the same figure of `before`, then the figures of `before` that
 * `after` lost, for the suites `after` ran (a partial run says nothing of the other suites).
 */
export function compareResults(
  before: readonly BenchResult[],
  after: readonly BenchResult[],
): FigureChange[] {
  const earlier = new Map(before.map((r) => [keyOf(r), r]));
  const ran = new Set(after.map((r) => r.suite));
  const changes: FigureChange[] = after.map((r) => {
    const then = earlier.get(keyOf(r))?.value;
    const ratio = then === undefined || then === 0 ? undefined : r.value / then;
    return {
      suite: r.suite,
      case: r.case,
      client: r.client,
      unit: r.unit,
      before: then,
      after: r.value,
      ratio,
    };
  });
  const now = new Set(after.map(keyOf));
  for (const r of before) {
    if (!ran.has(r.suite) || now.has(keyOf(r))) continue;
    changes.push({
      suite: r.suite,
      case: r.case,
      client: r.client,
      unit: r.unit,
      before: r.value,
      after: undefined,
      ratio: undefined,
    });
  }
  return changes;
}

/** `+` better, `-` worse, `=` within UNCHANGED_PERCENT, by the unit's direction (report.ts). */
export function verdict(change: FigureChange): string {
  if (change.ratio === undefined) return change.after === undefined ? 'gone' : 'new';
  const oriented = higherIsBetter(change.unit) ? change.ratio : 1 / change.ratio;
  if (Math.abs(oriented - 1) * 100 <= UNCHANGED_PERCENT) return '=';
  return oriented > 1 ? '+' : '-';
}

/** The comparison as an aligned text table, one block per suite. */
export function formatComparison(changes: readonly FigureChange[], beforeLabel: string): string {
  const blocks = perSuite(changes, (suite, ofSuite) => {
    const lines: string[][] = [['case', 'client', 'unit', 'before', 'after', 'after/before', '']];
    let previousCase: string | undefined;
    for (const c of ofSuite) {
      lines.push([
        c.case === previousCase ? '' : c.case,
        c.client,
        c.unit,
        c.before === undefined ? '–' : formatValue(c.before),
        c.after === undefined ? '–' : formatValue(c.after),
        c.ratio === undefined ? '–' : `${c.ratio.toFixed(2)}×`,
        verdict(c),
      ]);
      previousCase = c.case;
    }
    return [`${suite} (before: ${beforeLabel})`, ...alignColumns(lines, new Set([3, 4, 5]))].join('\n');
  });
  return `${blocks}\n(+ better, - worse, = within ${UNCHANGED_PERCENT}%, by each unit's direction; expect ±20–30% between runs on a shared machine)`;
}
