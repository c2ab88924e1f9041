// The simulated worlds a run can take place in (issue 16): one standalone Redis, a Redis Cluster
// (cluster.ts) or a Sentinel-watched primary with replicas (sentinel.ts). Each gives the client's
// mode options, the one log of commands its nodes ran, and its own faults to arm.
import type { RespireEndpoint } from '../../src/errors.js';
import type { RespireOptions } from '../../src/index.js';
import type { SeededRandom } from '../kit/seeded-random.js';
import { SimCluster } from './cluster.js';
import { armClusterFaults, drawClusterFaults } from './cluster-faults.js';
import type { FaultPlan } from './faults.js';
import type { Redirected } from './invariants.js';
import type { SimNetwork } from './network.js';
import { type ExecutedCommand, SimRedis } from './redis.js';
import type { Scheduler } from './scheduler.js';
import { armSentinelFaults, drawSentinelFaults, SimSentinels } from './sentinel.js';

export const MODES = ['standalone', 'cluster', 'sentinel'] as const;
export type Mode = (typeof MODES)[number];

export interface World {
  /** The client options that pick the mode and name the world's entry points. */
  readonly options: Partial<RespireOptions>;
  /** Data nodes whose circuits the invariants follow. */
  readonly dataNodes: readonly RespireEndpoint[];
  /** Every data command the world's nodes ran, in the order they ran them. */
  readonly log: readonly ExecutedCommand[];
  /** Cluster: each command a node answered with a redirect, and when. */
  readonly redirected?: readonly Redirected[];
  /** What the client should never have sent, from every node. */
  misuse(): string[];
  /** Schedules the world's own faults (failovers, migrations) from `origin`; traced. */
  arm(origin: number): void;
  /** The world's faults, for the first trace line. */
  readonly settings: unknown;
}

export interface WorldContext {
  readonly scheduler: Scheduler;
  readonly network: SimNetwork;
  readonly plan: FaultPlan;
  readonly random: SeededRandom;
  readonly horizonMs: number;
}

const STANDALONE = { host: 'sim-redis', port: 6379 };
const SHARDS = 3;

export function buildWorld(mode: Mode, context: WorldContext): World {
  const { scheduler, network, plan, random, horizonMs } = context;
  if (mode === 'standalone') {
    const server = new SimRedis(scheduler, plan);
    network.listen(STANDALONE, server);
    return {
      options: { endpoints: [STANDALONE] },
      dataNodes: [STANDALONE],
      log: server.log,
      misuse: () => server.misuse,
      arm: () => {},
      settings: {},
    };
  }
  if (mode === 'cluster') {
    const cluster = new SimCluster(scheduler, plan, network, SHARDS, random.chance(0.2));
    const faults = drawClusterFaults(random, horizonMs, SHARDS);
    const names = cluster.nodes.map((node) => node.name);
    for (const outage of plan.settings.outages) outage.node = random.pick(names);
    const seeds = random.shuffle(cluster.nodes).slice(0, random.int(1, 3));
    return {
      options: { endpoints: seeds.map((node) => node.endpoint), useCluster: true },
      dataNodes: cluster.nodes.map((node) => node.endpoint),
      log: cluster.log,
      redirected: cluster.redirected,
      misuse: () => cluster.nodes.flatMap((node) => node.server.misuse),
      arm: (origin) => armClusterFaults(cluster, faults, origin),
      settings: faults,
    };
  }
  const sentinels = new SimSentinels(scheduler, plan, network);
  const faults = drawSentinelFaults(random, horizonMs);
  const names = [...sentinels.data, ...sentinels.sentinels].map((node) => node.name);
  for (const outage of plan.settings.outages) outage.node = random.pick(names);
  return {
    options: {
      sentinel: {
        serviceName: sentinels.service,
        endpoints: sentinels.sentinels.map((node) => node.endpoint),
      },
    },
    dataNodes: sentinels.data.map((node) => node.endpoint),
    log: sentinels.log,
    misuse: () => [...sentinels.data, ...sentinels.sentinels].flatMap((node) => node.server.misuse),
    arm: (origin) => armSentinelFaults(sentinels, faults, origin),
    settings: faults,
  };
}
