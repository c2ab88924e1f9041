// A blip scenario as a suite runs it (the `outage` suite, and the `cluster` suite's blip of one
// primary): says what runs, runs every contender, writes the chart beside the results, prints
// the side-by-side table and the targets of the contenders with a breaker, and returns the rows.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BenchContext, BenchResult } from '../suite.js';
import { renderOutageChart } from './chart.js';
import { ProgressLine } from './progress.js';
import {
  formatOutageTable,
  formatTargets,
  METRICS,
  outageChartInput,
  outageRows,
  type RowsOf,
  SUITE,
  type TargetCheck,
} from './results.js';
import { runOutageScenario, type ScenarioTarget } from './scenario.js';
import { describeSettings, type OutageSettings, runSettings } from './settings.js';
import type { ContenderSummary } from './summary.js';

export interface ScenarioRun {
  /** For the log and the progress line, e.g. `outage`. */
  name: string;
  settings: OutageSettings;
  target: ScenarioTarget;
  /** Said once before the run, after the settings. */
  about: string;
  /** The chart's file in the results directory, its title and what its shaded band says. */
  chart: { file: string; title?: string; blipLabel?: string };
  rowsOf?: RowsOf;
  /** Targets beside issue 6's for a contender with a breaker. */
  extraTargets?(summary: ContenderSummary): TargetCheck[];
}

export async function runScenarioSuite(run: ScenarioRun, context: BenchContext): Promise<BenchResult[]> {
  const { resultsDir } = runSettings(context);
  const { name, settings } = run;
  context.log(`${name}: ${describeSettings(settings)}`);
  context.log(`${name}: ${run.about}`);
  const report = await runOutageScenario(settings, run.target, {
    progress: new ProgressLine(process.stderr),
    name,
  });
  const chart = path.join(resultsDir, run.chart.file);
  await writeFile(chart, renderOutageChart(outageChartInput(report, run.chart)));
  context.log(`${name}: wrote ${path.relative(process.cwd(), chart) || chart}`);
  const rowsOf = run.rowsOf ?? { suite: SUITE, metrics: METRICS, casePrefix: '' };
  context.log(formatOutageTable(report, rowsOf.metrics));
  report.summaries.forEach((summary, index) => {
    if (settings.contenders[index]?.circuitBreaker == null) return;
    context.log(formatTargets(summary, run.extraTargets?.(summary)));
  });
  return outageRows(report, rowsOf);
}
