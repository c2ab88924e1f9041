// The Cluster's own faults (issue 16), drawn from the seed: slot migrations (MIGRATING/IMPORTING:
// the slot's keys move one at a time while the source answers ASK for those already gone, then
// the slot changes owner and the source answers MOVED) and primary failovers (the primary dies and
// its replica is promoted a while later, the old one maybe coming back as a replica; or the
// primary is demoted and its replica promoted at once, as a manual CLUSTER FAILOVER does).
import type { SeededRandom } from '../kit/seeded-random.js';
import type { SimCluster } from './cluster.js';
import { slotOf } from './slot.js';

export interface MigrationFault {
  at: number;
  /** A key of the workload whose slot moves (so that the move meets traffic). */
  key: string;
  /** Shards to go forward from the owner, 1 or more. */
  shift: number;
  stepMs: number;
}

export interface FailoverFault {
  at: number;
  shard: number;
  how: 'die' | 'demote';
  /** Dead primary: how long until the replica is promoted. */
  promoteAfterMs: number;
  /** Dead primary: when it comes back as a replica, if it does. */
  backAfterMs: number | undefined;
}

export interface ClusterFaults {
  readonly migrations: MigrationFault[];
  readonly failovers: FailoverFault[];
}

const MIGRATED_KEYS = ['k0', 'k1', 'k2', 'k3', 'l0', 'l1', 'stream'];

export function drawClusterFaults(random: SeededRandom, horizonMs: number, shards: number): ClusterFaults {
  const migrations: MigrationFault[] = [];
  for (let n = random.chance(0.2) ? 0 : random.int(1, 3); n > 0; n--) {
    migrations.push({
      at: random.int(0, horizonMs),
      key: random.pick(MIGRATED_KEYS),
      shift: random.int(1, shards - 1),
      stepMs: random.int(1, 200),
    });
  }
  const failovers: FailoverFault[] = [];
  for (let n = random.chance(0.4) ? 0 : random.int(1, 2); n > 0; n--) {
    failovers.push({
      at: random.int(0, horizonMs),
      shard: random.int(0, shards - 1),
      how: random.chance(0.5) ? 'die' : 'demote',
      promoteAfterMs: random.int(0, 1500),
      backAfterMs: random.chance(0.5) ? random.int(100, 3000) : undefined,
    });
  }
  return { migrations, failovers };
}

/** Schedules the faults, times relative to `origin` (when the workload starts). */
export function armClusterFaults(cluster: SimCluster, faults: ClusterFaults, origin: number): void {
  const { scheduler } = cluster;
  for (const migration of faults.migrations) {
    scheduler.at(origin + migration.at, 'io', 'migration', () => migrate(cluster, migration));
  }
  for (const failover of faults.failovers) {
    scheduler.at(origin + failover.at, 'io', 'failover', () => failOver(cluster, failover));
  }
}

function migrate(cluster: SimCluster, fault: MigrationFault): void {
  if (cluster.migration !== undefined) return; // one at a time, as an operator would
  const slot = slotOf(fault.key);
  const from = cluster.owner[slot]!;
  const to = (from + fault.shift) % cluster.stores.length;
  cluster.migration = { slot, from, to };
  const { scheduler } = cluster;
  scheduler.trace(`slot ${slot} (${fault.key}) migrates from shard ${from} to ${to}`);
  const step = (): void => {
    const source = cluster.stores[from]!;
    const key = [...source.data.keys()].find((candidate) => slotOf(candidate) === slot);
    if (key === undefined) {
      cluster.owner[slot] = to;
      cluster.migration = undefined;
      scheduler.trace(`slot ${slot} now belongs to shard ${to}`);
      cluster.redirectBlocked();
      return;
    }
    // MIGRATE: the key leaves the source and appears on the target; WATCHes of it see a change.
    const target = cluster.stores[to]!;
    target.data.set(key, source.data.get(key)!);
    source.data.delete(key);
    for (const store of [source, target]) store.versions.set(key, (store.versions.get(key) ?? 0) + 1);
    scheduler.trace(`key ${key} migrated`);
    scheduler.after(fault.stepMs, 'migration step', step);
  };
  scheduler.after(fault.stepMs, 'migration step', step);
}

function failOver(cluster: SimCluster, fault: FailoverFault): void {
  const { scheduler, network } = cluster;
  const primary = cluster.primaryOf(fault.shard);
  const replica = cluster.nodes.find((node) => node.shard === fault.shard && node.role === 'replica');
  if (primary === undefined || replica === undefined || !primary.up || !replica.up) return;
  const promote = (): void => {
    replica.role = 'primary';
    primary.role = 'replica';
    scheduler.trace(`${replica.name} promoted, ${primary.name} is a replica`);
    cluster.redirectBlocked();
  };
  if (fault.how === 'demote') {
    promote();
    return;
  }
  primary.up = false;
  network.unlisten(primary.endpoint);
  scheduler.trace(`${primary.name} dies`);
  for (const link of network.open(primary.name)) link.reset('node died');
  scheduler.after(fault.promoteAfterMs, 'promotion', promote);
  if (fault.backAfterMs !== undefined) {
    scheduler.after(fault.promoteAfterMs + fault.backAfterMs, 'node back', () => {
      primary.up = true;
      network.listen(primary.endpoint, primary.server);
      scheduler.trace(`${primary.name} is back`);
    });
  }
}
