// Benchmark scenario `sentinel-failover` (issue 12, "Benchmark and demo"): a steady rate of SETs
// through a planned failover (SENTINEL FAILOVER) and through a primary crash (SIGKILL), Respire
// against ioredis (`new Redis({ sentinels, name })`) and node-redis (`createSentinel`), each with
// its Sentinel support at its defaults, on a fresh Sentinel group per run (bench/sentinel/).
// Rows go to latest.json and the chart to sentinel-failover.svg beside it.
//
// The clients run in the runner's process, one after another, Respire first: the figures here are
// tens of milliseconds to seconds at a thousand writes a second, which a peer's slowdown of
// String.prototype (bench/suite.ts) cannot move; the suite runs last (`runsLast`).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderOutageChart } from '../outage/chart.js';
import { runSettings } from '../outage/settings.js';
import {
  type ConnectSentinelDriver,
  type FailoverFigures,
  type Fault,
  runFailover,
  STUCK_BOUND_MS,
} from '../sentinel/failover-run.js';
import type { BenchResult, InProcessSuite } from '../suite.js';

const SUITE = 'sentinel-failover';
export const FAULTS: readonly Fault[] = ['planned failover', 'primary crash'];

const CLIENTS: Record<string, ConnectSentinelDriver> = {
  async respire(sentinels, serviceName) {
    const { RespireClient } = await import('../../src/index.js');
    const redis = await RespireClient.connect({
      sentinel: { serviceName, endpoints: sentinels.map(({ host, port }) => `${host}:${port}`) },
    });
    return { set: (key, value) => redis.set(key, value), close: () => redis.close() };
  },
  async ioredis(sentinels, name) {
    const { Redis } = await import('ioredis');
    const redis = new Redis({ sentinels: sentinels.map(({ host, port }) => ({ host, port })), name });
    // Its connection errors are retried all the same; without a listener it prints each one.
    redis.on('error', () => undefined);
    await redis.ping();
    return {
      set: (key, value) => redis.set(key, value),
      close: async () => redis.disconnect(),
    };
  },
  async 'node-redis'(sentinels, name) {
    const { createSentinel } = await import('redis');
    const redis = createSentinel({
      name,
      sentinelRootNodes: sentinels.map(({ host, port }) => ({ host, port })),
    });
    redis.on('error', () => undefined);
    await redis.connect();
    return { set: (key, value) => redis.set(key, value), close: () => redis.destroy() };
  },
};
export const SENTINEL_CLIENTS = Object.keys(CLIENTS);

/** The rows of one run; the case names its fault. */
export const SENTINEL_METRICS: readonly {
  case: string;
  unit: string;
  value(figures: FailoverFigures): number;
}[] = [
  { case: 'time until writes resume', unit: 'ms', value: (f) => Math.round(f.resumeMs) },
  { case: 'switch known to every sentinel', unit: 'ms', value: (f) => Math.round(f.switchKnownMs) },
  { case: 'calls failed', unit: 'calls', value: (f) => f.failed },
  { case: `calls stuck (unsettled after ${STUCK_BOUND_MS / 1000} s)`, unit: 'calls', value: (f) => f.stuck },
  {
    case: 'writes sent to the demoted primary after the switch was known',
    unit: 'calls',
    value: (f) => f.sentToDemoted,
  },
  { case: 'acknowledged writes the server lost', unit: 'writes', value: (f) => f.lostAcknowledged },
  { case: 'acknowledged writes', unit: 'writes', value: (f) => f.acknowledged },
  { case: 'calls made', unit: 'calls', value: (f) => f.made },
];

export const sentinelFailoverSuite: InProcessSuite & { runsLast: true } = {
  name: SUITE,
  runsLast: true,
  async run(context) {
    const timings = context.quick
      ? { warmupMs: 500, afterMs: 1_500, writesPerSecond: 500, sentinelPeriods: 'fast' as const }
      : { warmupMs: 2_000, afterMs: 15_000, writesPerSecond: 1_000, sentinelPeriods: 'redis' as const };
    context.log(
      `${SUITE}: ${timings.writesPerSecond} SETs/s, ${timings.warmupMs / 1000} s before the fault, ` +
        `${timings.afterMs / 1000} s after the switch was known; a fresh primary + 2 replicas + 3 sentinels ` +
        '(down-after-milliseconds 1000) per run; every client with its defaults',
    );
    const rows: BenchResult[] = [];
    const charts: { fault: Fault; client: string; figures: FailoverFigures }[] = [];
    for (const fault of FAULTS) {
      for (const [client, connect] of Object.entries(CLIENTS)) {
        context.log(`${SUITE}: ${fault} · ${client}`);
        const figures = await failoverOnceMore(
          () => runFailover(connect, fault, timings, `${client}:${fault}`.replaceAll(' ', '-')),
          (error) => context.log(`${SUITE}: ${fault} · ${client}: ${error}; once more on a fresh group`),
        );
        charts.push({ fault, client, figures });
        for (const metric of SENTINEL_METRICS) {
          rows.push({
            suite: SUITE,
            case: `${fault} › ${metric.case}`,
            client,
            value: metric.value(figures),
            unit: metric.unit,
          });
        }
        context.log(
          `${SUITE}: ${fault} · ${client}: ` +
            SENTINEL_METRICS.map((metric) => `${metric.case} ${metric.value(figures)}`).join(', '),
        );
      }
    }
    const { resultsDir } = runSettings(context);
    for (const fault of FAULTS) {
      const file = path.join(resultsDir, `${SUITE}-${fault.replaceAll(' ', '-')}.svg`);
      const lines = charts.filter((run) => run.fault === fault);
      await writeFile(
        file,
        renderOutageChart({
          title: `Sentinel, ${fault} under ${timings.writesPerSecond} SETs/s: what each client's callers saw`,
          subtitle:
            'every client with its Sentinel support at its defaults; completed = acknowledged and still on the new primary when read back; seconds from the fault',
          blipLabel: 'until every sentinel named the new primary',
          blipS: Math.max(...lines.map((run) => run.figures.switchKnownMs)) / 1000,
          offeredPerSecond: timings.writesPerSecond,
          lines: lines.map((run) => ({
            name: run.client,
            series: run.figures.series,
            mark: { atS: run.figures.resumeMs / 1000, label: 'writes resume' },
          })),
        }),
      );
      context.log(`${SUITE}: wrote ${path.relative(process.cwd(), file) || file}`);
    }
    return rows;
  },
};

export default sentinelFailoverSuite;

/**
 * The run, and once more on a fresh group if the first fails: now and then the sentinels of a
 * loaded machine take more than the kit's minute to agree on a promotion (seen once after a
 * SIGKILL), which says nothing about the client; a second failure fails the suite.
 */
async function failoverOnceMore(
  run: () => Promise<FailoverFigures>,
  log: (error: unknown) => void,
): Promise<FailoverFigures> {
  try {
    return await run();
  } catch (error) {
    log(error instanceof Error ? error.message.split('\n')[0] : error);
    return run();
  }
}
