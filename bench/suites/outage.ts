// Benchmark scenario `outage` (issue 6): a Redis blip under load, side by side. Respire with its
// circuit breaker, Respire without it, ioredis and node-redis, each in a process of its own and
// with its defaults, make PUBLISH and XADD calls through the test kit's fault proxy while an
// unrelated CPU task keeps time; the proxy black-holes Redis for `--blip` seconds, then heals.
// Rows go to latest.json, the chart to outage.svg beside it, and a side-by-side table to stderr.
// It runs after the throughput suites (`runsLast`), since it takes a minute and a half.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderOutageChart } from '../outage/chart.js';
import { ProgressLine } from '../outage/progress.js';
import { formatOutageTable, formatTargets, outageChartInput, outageRows, SUITE } from '../outage/results.js';
import { runOutageScenario } from '../outage/scenario.js';
import { describeSettings, outageSettings } from '../outage/settings.js';
import type { RunSettings } from '../run.js';
import { type BenchContext, type InProcessSuite, redisEndpoint } from '../suite.js';

export const outageSuite: InProcessSuite & { runsLast: true } = {
  name: SUITE,
  runsLast: true,
  async run(context) {
    const { blipSeconds, resultsDir } = runSettings(context);
    const settings = outageSettings(context.quick, blipSeconds);
    const target = redisEndpoint(await context.redisUrl());
    context.log(`${SUITE}: ${describeSettings(settings)}`);
    context.log(
      `${SUITE}: every client with its defaults, each in a process of its own, one after another, through a fault proxy`,
    );
    const report = await runOutageScenario(settings, target, { progress: new ProgressLine(process.stderr) });
    const chart = path.join(resultsDir, `${SUITE}.svg`);
    await writeFile(chart, renderOutageChart(outageChartInput(report)));
    context.log(`${SUITE}: wrote ${path.relative(process.cwd(), chart) || chart}`);
    context.log(formatOutageTable(report));
    report.summaries.forEach((summary, index) => {
      if (settings.contenders[index]?.circuitBreaker != null) context.log(formatTargets(summary));
    });
    return outageRows(report);
  },
};

export default outageSuite;

/** The runner's `--blip` and results directory, when it passes them (bench/run.ts RunSettings). */
function runSettings(context: BenchContext): { blipSeconds: number | undefined; resultsDir: string } {
  const given = context as BenchContext & Partial<RunSettings>;
  return {
    blipSeconds: given.blipSeconds,
    resultsDir: given.resultsDir ?? path.join(process.cwd(), 'bench', 'results'),
  };
}
