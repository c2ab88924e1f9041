// Benchmark suite `cluster` (issue 11, "Benchmark"): Respire's Cluster mode against ioredis's
// `Cluster` and node-redis's `createCluster`, each in a worker process of its own, on a local
// cluster of three primaries and three replicas that the runner starts for it and stops. Every
// peer runs with its defaults and in its fastest configuration (ioredis with auto-pipelining,
// node-redis without its per-command timeout); each case also gets a row of Respire's rate over
// the fastest peer's in the same run. Then the blip: one primary black-holed under the outage
// scenario's load (bench/outage/cluster-blip.ts), with its chart in cluster-outage.svg.

import { keySlot } from '../../src/cluster/key-slot.js';
import { checkedPasses } from '../clients/checked-passes.js';
import type { ClusterDriver, ConnectClusterDriver } from '../clients/driver.js';
import { flatString, flatten } from '../flat-strings.js';
import { roundTripMeasureOptions } from '../measure.js';
import { runClusterBlip } from '../outage/cluster-blip.js';
import { isRespire } from '../report.js';
import type { BenchCluster, BenchResult, CasePlan, IsolatedSuite, PreparedContender } from '../suite.js';

const SUITE = 'cluster';
const RESPIRE = 'respire';
const IOREDIS = 'ioredis Cluster';
const IOREDIS_AUTO = 'ioredis Cluster auto-pipelining';
const NODE_REDIS = 'node-redis createCluster';
const NODE_REDIS_NO_TIMEOUT = 'node-redis createCluster, no command timeout';
const CONTENDERS = [RESPIRE, IOREDIS, IOREDIS_AUTO, NODE_REDIS, NODE_REDIS_NO_TIMEOUT];

/** Each client by contender name; imported only inside that contender's worker. */
const DRIVERS: Record<string, ConnectClusterDriver> = {
  [RESPIRE]: async (seeds) => (await import('../clients/respire-cluster.js')).connectRespireCluster(seeds),
  [IOREDIS]: async (seeds) =>
    (await import('../clients/ioredis-cluster.js')).connectIoredisCluster(seeds, false),
  [IOREDIS_AUTO]: async (seeds) =>
    (await import('../clients/ioredis-cluster.js')).connectIoredisCluster(seeds, true),
  [NODE_REDIS]: async (seeds) =>
    (await import('../clients/node-redis-cluster.js')).connectNodeRedisCluster(seeds, true),
  [NODE_REDIS_NO_TIMEOUT]: async (seeds) =>
    (await import('../clients/node-redis-cluster.js')).connectNodeRedisCluster(seeds, false),
};

const VALUE = flatString(16, 'v');
/** Keys of the GET and SET cases: their CRC16 slots spread them over every primary. */
const KEYS = 1000;
/** Keys per MGET, each in a slot of its own. */
const MGET_KEYS = 10;

interface ClusterCase {
  name: string;
  /** Calls a pass makes. */
  calls: number;
  pass(driver: ClusterDriver): () => Promise<unknown[]>;
  expected: string | string[];
}

const CASES: readonly ClusterCase[] = [
  {
    name: 'GET 16 B, Promise.all of 1000 over every slot',
    calls: KEYS,
    pass: (driver) => concurrently((key) => driver.get(key)),
    expected: VALUE,
  },
  {
    name: 'SET 16 B, Promise.all of 1000 over every slot',
    calls: KEYS,
    pass: (driver) => concurrently((key) => driver.set(key, VALUE)),
    expected: 'OK',
  },
  {
    name: `MGET of ${MGET_KEYS} keys in ${MGET_KEYS} slots, Promise.all of 100`,
    calls: 100,
    pass(driver) {
      const groups = mgetGroups(100);
      const promises: Promise<unknown>[] = new Array(groups.length);
      return () => {
        for (let i = 0; i < groups.length; i++) promises[i] = driver.mget(groups[i]!);
        return Promise.all(promises);
      };
    },
    expected: Array.from({ length: MGET_KEYS }, () => VALUE),
  },
  {
    name: 'GET 16 B, 100 sequential awaits over every slot',
    calls: 100,
    pass(driver) {
      const keys = caseKeys().slice(0, 100);
      return async () => {
        const replies: unknown[] = new Array(keys.length);
        for (let i = 0; i < keys.length; i++) replies[i] = await driver.get(keys[i]!);
        return replies;
      };
    },
    expected: VALUE,
  },
];

export const clusterSuite: IsolatedSuite & { runsLast: true } = {
  name: SUITE,
  // Its blip takes a minute and a half: after the throughput suites, beside the outage scenario.
  runsLast: true,
  plan(context): CasePlan[] {
    return CASES.map((clusterCase) => ({
      name: clusterCase.name,
      contenders: CONTENDERS,
      measure: roundTripMeasureOptions(context.quick),
    }));
  },
  async prepare(caseName, contender, context): Promise<PreparedContender> {
    const clusterCase = CASES.find((candidate) => candidate.name === caseName);
    if (clusterCase === undefined) throw new Error(`${SUITE} has no case ${caseName}`);
    const connect = DRIVERS[contender];
    if (connect === undefined) throw new Error(`${SUITE} has no contender ${contender}`);
    const driver = await connect(seeds(await context.redisCluster()));
    // Every worker writes the same value to the same keys, so the order of the workers is moot.
    const keys = [...caseKeys(), ...mgetGroups(100).flat()];
    await Promise.all(keys.map((key) => driver.set(key, VALUE)));
    return checkedPasses({
      contender,
      caseName,
      calls: clusterCase.calls,
      expected: clusterCase.expected,
      pass: clusterCase.pass(driver),
      close: () => driver.close(),
    });
  },
  async finish(rows, context) {
    const ratios = fastestPeerRatios(rows);
    for (const ratio of ratios) context.log(`${SUITE}: ${ratio.case}: ${ratio.client} = ${ratio.value}×`);
    const blip = await runClusterBlip(SUITE, await context.redisCluster(), context);
    return [...rows, ...ratios, ...blip];
  },
};

export default clusterSuite;

/** The unit of the rows that compare Respire's rate with the fastest peer's. */
export const FASTEST_PEER_UNIT = '× the fastest peer';

/**
 * For each case, Respire's ops/s over the highest ops/s of any peer configuration in the same run,
 * as a row whose client names that peer (`respire / ioredis Cluster auto-pipelining`).
 */
export function fastestPeerRatios(rows: readonly BenchResult[]): BenchResult[] {
  const ratios: BenchResult[] = [];
  for (const name of new Set(rows.map((row) => row.case))) {
    const rates = rows.filter((row) => row.case === name && row.unit === 'ops/s');
    const respire = rates.find((row) => isRespire(row.client));
    const peers = rates.filter((row) => !isRespire(row.client));
    if (respire === undefined || peers.length === 0) continue;
    const fastest = peers.reduce((best, row) => (row.value > best.value ? row : best));
    ratios.push({
      suite: respire.suite,
      case: name,
      client: `${respire.client} / ${fastest.client}`,
      value: Number((respire.value / fastest.value).toFixed(2)),
      unit: FASTEST_PEER_UNIT,
    });
  }
  return ratios;
}

/** Every primary: any of them will do as a seed. */
function seeds(cluster: BenchCluster): { host: string; port: number }[] {
  return cluster.nodes.filter((node) => node.role === 'primary').map(({ host, port }) => ({ host, port }));
}

function caseKeys(): string[] {
  return Array.from({ length: KEYS }, (_, i) => flatten(`bench:cluster:${i}`));
}

/** `count` lists of MGET_KEYS keys, each key of a list in a slot of its own. */
function mgetGroups(count: number): string[][] {
  const groups: string[][] = [];
  let next = 0;
  while (groups.length < count) {
    const group: string[] = [];
    const slots = new Set<number>();
    while (group.length < MGET_KEYS) {
      const key = flatten(`bench:cluster:mget:${next++}`);
      const slot = keySlot(key);
      if (slots.has(slot)) continue;
      slots.add(slot);
      group.push(key);
    }
    groups.push(group);
  }
  return groups;
}

/** A pass of one call per key of `caseKeys()`, all issued at once and awaited with Promise.all. */
function concurrently(call: (key: string) => Promise<unknown>): () => Promise<unknown[]> {
  const keys = caseKeys();
  const promises: Promise<unknown>[] = new Array(keys.length);
  return () => {
    for (let i = 0; i < keys.length; i++) promises[i] = call(keys[i]!);
    return Promise.all(promises);
  };
}
