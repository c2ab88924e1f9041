// Output of `npm run bench`: the per-suite table with Respire's ratios, and bench/results/latest.json.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import type { BenchResult } from './suite.js';

/** The shape of `bench/results/latest.json`. */
export interface BenchReport {
  results: BenchResult[];
  meta: {
    node: string;
    cpu: string;
    /** ISO 8601 time the run finished. */
    date: string;
    /** The command line that produced the latest rows, e.g. `npm run bench -- --only resp-decode`. */
    command: string;
  };
}

export function describeRun(results: BenchResult[], command: string, date: Date): BenchReport {
  const cpu = cpus();
  return {
    results,
    meta: {
      node: process.version,
      cpu: `${cpu[0]?.model.trim() ?? 'unknown'} × ${cpu.length}`,
      date: date.toISOString(),
      command,
    },
  };
}

/**
 * Writes `report` to `path`. When only some suites ran, the rows of every other suite are kept
 * from the existing file, so a partial run refreshes its own figures without erasing the rest.
 */
export async function writeReport(path: string, report: BenchReport, partial: boolean): Promise<BenchReport> {
  let results = report.results;
  if (partial) {
    const previous = await readReport(path);
    const ran = new Set(report.results.map((row) => row.suite));
    const kept = previous?.results.filter((row) => !ran.has(row.suite)) ?? [];
    // Suites stay where the file had them (new ones go last), each keeping its own row order.
    const order = new Map<string, number>();
    for (const row of [...(previous?.results ?? []), ...report.results]) {
      if (!order.has(row.suite)) order.set(row.suite, order.size);
    }
    results = [...kept, ...report.results].sort((a, b) => order.get(a.suite)! - order.get(b.suite)!);
  }
  const merged: BenchReport = { results, meta: report.meta };
  // Write beside the target and rename, so an interrupted run never leaves half a file.
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(merged, null, 2)}\n`);
  await rename(temporary, path);
  return merged;
}

/** The report at `path`, or undefined when there is no such file. */
export async function readReport(path: string): Promise<BenchReport | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<BenchReport>;
  if (!Array.isArray(parsed.results)) throw new Error(`${path} has no "results" array`);
  return parsed as BenchReport;
}

/**
 * Respire's own rows: `respire` and variants such as `respire CommandEncoder` or breaker-client's
 * `respire, circuit closed`. bench/isolation.ts holds these contenders' processes to isolation.
 */
export function isRespire(client: string): boolean {
  return client === 'respire' || client.startsWith('respire ') || client.startsWith('respire,');
}

/**
 * The table for one suite. Each peer or floor row carries Respire's ratio to it, oriented so
 * that above 1× means Respire is ahead: `respire / peer` for rates (units ending in `/s`),
 * `peer / respire` for costs (`ns/op`, `bytes`).
 */
export function formatSuiteTable(suite: string, rows: readonly BenchResult[]): string {
  const lines: string[][] = [['case', 'client', 'value', 'unit', 'ratio']];
  let previousCase: string | undefined;
  for (const row of rows) {
    const ours = rows.filter(
      (other) => other.case === row.case && other.unit === row.unit && isRespire(other.client),
    );
    const ratios = isRespire(row.client) ? [] : ours.map((respire) => formatRatio(respire, row));
    lines.push([
      row.case === previousCase ? '' : row.case,
      row.client,
      formatValue(row.value),
      row.unit,
      ratios.join('; '),
    ]);
    previousCase = row.case;
  }
  return [suite, ...alignColumns(lines, new Set([2]))].join('\n');
}

/** Rows of cells as text lines, columns two spaces apart at their widest cell's width; `numeric` ones right-aligned. */
export function alignColumns(lines: readonly (readonly string[])[], numeric: ReadonlySet<number>): string[] {
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  return lines.map((line) =>
    line
      .map((cell, column) =>
        numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** Whether a higher value of `unit` is better: rates (units ending in `/s`) are. */
export function higherIsBetter(unit: string): boolean {
  return unit.endsWith('/s');
}

/** Respire's ratio to `peer` in one unit, oriented so that above 1 means Respire is ahead. */
export function respireRatio(respire: BenchResult, peer: BenchResult): number {
  return higherIsBetter(peer.unit) ? respire.value / peer.value : peer.value / respire.value;
}

function formatRatio(respire: BenchResult, peer: BenchResult): string {
  const ratio = respireRatio(respire, peer);
  const label = higherIsBetter(peer.unit)
    ? `${respire.client} / ${peer.client}`
    : `${peer.client} / ${respire.client}`;
  // 0/0 (both nothing) has no ratio; x/0 is unbounded.
  if (Number.isNaN(ratio)) return `${label} = –`;
  return `${label} = ${Number.isFinite(ratio) ? ratio.toFixed(2) : '∞'}×`;
}

export function formatValue(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 2 : 4;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** `format` of each suite's rows, in the order the suites' rows appear, a blank line apart. */
export function perSuite<Row extends { readonly suite: string }>(
  rows: readonly Row[],
  format: (suite: string, rows: readonly Row[]) => string,
): string {
  return [...new Set(rows.map((row) => row.suite))]
    .map((suite) =>
      format(
        suite,
        rows.filter((row) => row.suite === suite),
      ),
    )
    .join('\n\n');
}

/** Every suite's table, in the order the suites' rows appear. */
export function formatTables(results: readonly BenchResult[]): string {
  return perSuite(results, formatSuiteTable);
}
