// The outage scenario's figures as `bench/results/latest.json` rows (suite `outage`), as a table
// with one column per contender for the terminal, and the issue-6 targets for Respire with its
// breaker, checked against what was measured.
import type { BenchResult } from '../suite.js';
import type { ChartInput } from './chart.js';
import type { OutageReport } from './scenario.js';
import { describeSettings, SCALED_BREAKER, seconds } from './settings.js';
import type { ContenderSummary } from './summary.js';

export const SUITE = 'outage';

export interface Metric {
  case: string;
  unit: string;
  /** Undefined when the metric does not apply to the contender (no circuit). */
  value(summary: ContenderSummary): number | undefined;
}

/**
 * Rows only a contender with a circuit breaker has. When its circuit did not open during the blip
 * (a blip shorter than commandTimeout), they read the blip's length and 0, and the table says so.
 */
export const CIRCUIT_CASES = new Set([
  'blip: circuit opened after',
  'blip: caller latency p99 once the circuit opened',
]);

/** Every row, in table order. */
export const METRICS: readonly Metric[] = [
  { case: 'blip: caller latency p50', unit: 'ms', value: (s) => s.blipLatencyMs.p50 },
  { case: 'blip: caller latency p99', unit: 'ms', value: (s) => s.blipLatencyMs.p99 },
  { case: 'blip: caller latency max', unit: 'ms', value: (s) => s.blipLatencyMs.max },
  { case: 'blip: circuit opened after', unit: 'ms', value: (s) => s.circuit?.openedAfterMs },
  {
    case: 'blip: caller latency p99 once the circuit opened',
    unit: 'ms',
    value: (s) => s.circuit?.p99AfterOpenMs,
  },
  { case: 'calls completed', unit: 'calls', value: (s) => s.counts.completed },
  { case: 'calls rejected fast', unit: 'calls', value: (s) => s.counts.rejectedFast },
  { case: 'calls timed out', unit: 'calls', value: (s) => s.counts.timedOut },
  { case: 'calls failed otherwise', unit: 'calls', value: (s) => s.counts.failed },
  { case: 'calls pending at the end', unit: 'calls', value: (s) => s.counts.pending },
  { case: 'calls not issued: every producer busy', unit: 'calls', value: (s) => s.counts.notIssued },
  { case: 'event-loop delay p99', unit: 'ms', value: (s) => s.eventLoopDelayP99Ms },
  { case: 'heap growth', unit: 'MB', value: (s) => s.heapGrowthMb },
  { case: 'heal to full throughput', unit: 'ms', value: (s) => s.healToFullMs },
  {
    case: 'unrelated task: ticks run',
    unit: '% of due',
    value: (s) => s.taskPacePercent,
  },
];

/** How a scenario's figures become rows: the outage suite's by default. */
export interface RowsOf {
  suite: string;
  metrics: readonly Metric[];
  /** Prepended to every case. */
  casePrefix: string;
}

const OUTAGE_ROWS: RowsOf = { suite: SUITE, metrics: METRICS, casePrefix: '' };

/** Rows of every metric that applies, contender by contender within a metric. */
export function outageRows(report: OutageReport, rowsOf: RowsOf = OUTAGE_ROWS): BenchResult[] {
  const rows: BenchResult[] = [];
  for (const metric of rowsOf.metrics) {
    for (const summary of report.summaries) {
      const value = metric.value(summary);
      if (value === undefined) continue;
      rows.push({
        suite: rowsOf.suite,
        case: rowsOf.casePrefix + metric.case,
        client: summary.contender,
        value: round(value),
        unit: metric.unit,
      });
    }
  }
  return rows;
}

/** Four significant digits, or three decimals for small figures: the noise is larger than that. */
function round(value: number): number {
  return Math.abs(value) >= 1 ? Number(value.toPrecision(4)) : Number(value.toFixed(3));
}

/** The terminal's table: a row per metric, a column per contender. */
export function formatOutageTable(report: OutageReport, metrics: readonly Metric[] = METRICS): string {
  const header = ['', ...report.summaries.map((summary) => summary.contender)];
  const lines = [header];
  for (const metric of metrics) {
    const cells = report.summaries.map((summary) => {
      const value = metric.value(summary);
      if (value === undefined) return '–';
      const shown = formatFigure(value);
      if (metric.case === 'heal to full throughput' && !summary.recovered) return `≥ ${shown}`;
      if (CIRCUIT_CASES.has(metric.case) && summary.circuit?.opened === false) return 'never opened';
      return shown;
    });
    lines.push([`${metric.case} (${metric.unit})`, ...cells]);
  }
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  return lines
    .map((line) =>
      line
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!)))
        .join('  ')
        .trimEnd(),
    )
    .concat(
      report.summaries.map((summary) => `errors of ${summary.contender}: ${describeErrors(summary.errors)}`),
    )
    .join('\n');
}

/** What the failed calls failed with, most frequent first. */
function describeErrors(errors: Record<string, number>): string {
  const entries = Object.entries(errors).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return 'none';
  return entries.map(([name, count]) => `${name} ${count.toLocaleString('en-US')}`).join(', ');
}

export function formatFigure(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 1 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Heap growth under this counts as bounded: a few MB of records, not one per call offered. */
export const HEAP_BOUND_MB = 32;
/** Allowance for one probe round after `openDuration`: a round trip and a write, generously. */
export const PROBE_ROUND_MS = 100;
export const PACE_TARGET_PERCENT = 95;

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

/** Issue 6, "What the run must show", for the contender with the breaker. */
export function checkTargets(summary: ContenderSummary): TargetCheck[] {
  const p99 = summary.circuit?.opened === true ? summary.circuit.p99AfterOpenMs : undefined;
  const recoveryBound = SCALED_BREAKER.openDuration + PROBE_ROUND_MS;
  return [
    {
      target: 'p99 caller latency during the blip after the circuit opens ≤ 5 ms',
      measured: p99 === undefined ? 'the circuit never opened' : `${formatFigure(p99)} ms`,
      met: p99 !== undefined && p99 <= 5,
    },
    {
      target: 'zero calls pending at the end',
      measured: String(summary.counts.pending),
      met: summary.counts.pending === 0,
    },
    {
      target: `heap growth bounded (≤ ${HEAP_BOUND_MB} MB)`,
      measured: `${formatFigure(summary.heapGrowthMb)} MB`,
      met: summary.heapGrowthMb <= HEAP_BOUND_MB,
    },
    {
      target: `full throughput within openDuration + one probe round (${recoveryBound} ms) of the heal`,
      measured: `${summary.recovered ? '' : '≥ '}${formatFigure(summary.healToFullMs)} ms`,
      met: summary.recovered && summary.healToFullMs <= recoveryBound,
    },
    {
      target: `unrelated task keeps ≥ ${PACE_TARGET_PERCENT}% of its pace`,
      measured: `${formatFigure(summary.taskPacePercent)}%`,
      met: summary.taskPacePercent >= PACE_TARGET_PERCENT,
    },
  ];
}

export function formatTargets(summary: ContenderSummary, extra: readonly TargetCheck[] = []): string {
  return [
    `targets for ${summary.contender}:`,
    ...[...checkTargets(summary), ...extra].map(
      (check) => `  ${check.met ? 'met   ' : 'MISSED'} ${check.target}: ${check.measured}`,
    ),
  ].join('\n');
}

/** What the chart shows: every contender's series, the blip, and where a circuit opened. */
export function outageChartInput(
  report: OutageReport,
  words: { title?: string; blipLabel?: string } = {},
): ChartInput {
  const { settings } = report;
  return {
    title:
      words.title ?? `A ${seconds(settings.blipMs)} Redis blip under load: what each client's callers saw`,
    subtitle: describeSettings(settings),
    blipLabel: words.blipLabel ?? 'Redis black-holed',
    blipS: settings.blipMs / 1000,
    offeredPerSecond: settings.callsPerSecond,
    lines: report.summaries.map((summary) => ({
      name: summary.contender,
      series: summary.series,
      mark:
        summary.circuit?.opened === true
          ? { atS: summary.circuit.openedAfterMs / 1000, label: `circuit opened (${summary.contender})` }
          : undefined,
    })),
  };
}
