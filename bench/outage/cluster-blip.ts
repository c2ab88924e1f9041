// The `cluster` suite's blip (issue 11, "Benchmark"): the outage scenario's load, with its keys
// spread over every slot, against a local cluster of three primaries, one of which the fault proxy
// black-holes. Every contender reaches the other nodes directly and that primary through the
// proxy, by its own address map (Respire's `cluster.addressMap`, ioredis's `natMap`, node-redis's
// `nodeAddressMap`). PUBLISH has no key, so the cluster's run publishes with SPUBLISH, whose shard
// channel has one. What it must show: Respire, its circuits per node, keeps the calls of the two
// other primaries at their rate and turns the sick primary's callers away in under a millisecond.
import type { BenchCluster, BenchContext, BenchResult } from '../suite.js';
import { formatFigure, METRICS, type Metric, type TargetCheck } from './results.js';
import { runScenarioSuite } from './scenario-suite.js';
import { outageSettings, runSettings, seconds } from './settings.js';
import type { ContenderSummary } from './summary.js';

/** Keys the calls take turns over: about a third on each primary. */
export const CLUSTER_KEYS = 1024;
/** Prepended to the case of every blip row, apart from the throughput cases of the same suite. */
export const BLIP_CASE_PREFIX = 'one primary black-holed › ';
/** The share of the baseline rate that counts as kept. */
export const KEPT_PERCENT = 90;
/** The sick primary's callers are turned away faster than this (p99, once its circuit opened). */
export const REJECTION_BOUND_MS = 1;

/** Only a cluster's run has these (and only contenders whose circuit opened have the second). */
export const CLUSTER_METRICS: readonly Metric[] = [
  {
    case: "other primaries: completed calls/s in the blip's second half",
    unit: '% of baseline',
    value: (s) => s.cluster?.directRatePercent,
  },
  {
    case: 'black-holed primary: caller latency p99 once the circuit opened',
    unit: 'ms',
    value: (s) => s.cluster?.proxiedP99AfterOpenMs,
  },
  {
    case: 'black-holed primary: settled by the client p99 once the circuit opened',
    unit: 'ms',
    value: (s) => s.cluster?.proxiedSettledP99AfterOpenMs,
  },
];

export function clusterTargets(summary: ContenderSummary): TargetCheck[] {
  const rate = summary.cluster?.directRatePercent ?? 0;
  const p99 = summary.cluster?.proxiedP99AfterOpenMs;
  return [
    {
      target: `the other primaries keep ≥ ${KEPT_PERCENT}% of their rate in the blip's second half`,
      measured: `${formatFigure(rate)}%`,
      met: rate >= KEPT_PERCENT,
    },
    {
      target: `the black-holed primary's callers turned away in < ${REJECTION_BOUND_MS} ms (p99 once its circuit opened)`,
      measured: p99 === undefined ? 'the circuit never opened' : `${formatFigure(p99)} ms`,
      met: p99 !== undefined && p99 < REJECTION_BOUND_MS,
    },
  ];
}

/** Runs the blip against the first primary of `cluster`; the others are the seeds. */
export async function runClusterBlip(
  suite: string,
  cluster: BenchCluster,
  context: BenchContext,
): Promise<BenchResult[]> {
  const primaries = cluster.nodes.filter((node) => node.role === 'primary' && node.slots.length > 0);
  const [sick, ...others] = primaries;
  if (sick === undefined || others.length === 0)
    throw new Error(`${suite}: the blip needs two primaries or more`);
  const settings = { ...outageSettings(context.quick, runSettings(context).blipSeconds), keys: CLUSTER_KEYS };
  const address = (node: { host: string; port: number }) => ({ host: node.host, port: node.port });
  return runScenarioSuite(
    {
      name: `${suite} blip`,
      settings,
      target: { kind: 'cluster', seeds: others.map(address), primary: address(sick), slots: [...sick.slots] },
      about:
        `${primaries.length} primaries, keys in every slot; the primary at ${sick.host}:${sick.port} behind the fault proxy; every client with its defaults, ` +
        'each in a process of its own, one after another',
      chart: {
        file: `${suite}-outage.svg`,
        title: `One of ${primaries.length} primaries black-holed for ${seconds(settings.blipMs)} under load: what each client's callers saw`,
        blipLabel: 'one primary black-holed',
      },
      rowsOf: { suite, metrics: [...CLUSTER_METRICS, ...METRICS], casePrefix: BLIP_CASE_PREFIX },
      extraTargets: clusterTargets,
    },
    context,
  );
}
