// Topology changes under a live client, against a real cluster (issue 11 "Topology", "Bad input and
// faults"): a periodic refresh finds a migration done behind the client's back; a dead seed is never
// needed again; a primary failover (CLUSTER FAILOVER, and SIGKILL) under write load is followed
// without recreating the client and without replaying a write; a node gone from the map has its
// connections closed.
import { describe, expect, it } from 'vitest';
import { type RespireClient, RespireError } from '../../src/index.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { commandCalls, outcome, resetStats, tagOn, useProxiedClients } from './cluster-support.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster);
const open = kit.open.bind(kit);

/** GET calls the server rejected (MOVED, ASK…) on a node since the last resetStats. */
async function rejectedGets(node: ClusterNode): Promise<number> {
  const info = String(await cluster.command(node, ['INFO', 'commandstats']));
  return Number(/cmdstat_get:calls=\d+,.*rejected_calls=(\d+)/.exec(info)?.[1] ?? 0);
}

/** Sends GET through the client and reports whether the old owner had to redirect it. */
async function redirectedBy(redis: RespireClient, key: string, old: ClusterNode): Promise<boolean> {
  await resetStats(cluster);
  await redis.get(key);
  return (await rejectedGets(old)) > 0;
}

/**
 * Waits, sending nothing through the client, until it has read the topology twice since now (so
 * the first read's map is adopted): CLUSTER SHARDS calls over every node since a reset.
 */
async function twoRefreshes(): Promise<void> {
  await resetStats(cluster);
  await expect
    .poll(
      async () => {
        let calls = 0;
        for (const node of cluster.nodes.filter((candidate) => candidate.running)) {
          calls += (await commandCalls(cluster, node))['cluster|shards'] ?? 0;
        }
        return calls;
      },
      { timeout: 10_000 },
    )
    .toBeGreaterThanOrEqual(2);
}

describe('refresh', () => {
  it('the periodic refresh brings a migration done behind the client’s back', async () => {
    const redis = await open({ cluster: { refreshInterval: 200 } });
    const [source, target] = cluster.primaries as [ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, source, 'periodic');
    await redis.set(`${tag}:k`, 'v');
    await cluster.migrateSlot(slot, target);
    // Nothing sent meanwhile: a MOVED would teach the client too.
    await twoRefreshes();
    expect(await redirectedBy(redis, `${tag}:k`, source)).toBe(false);
    expect(await redis.get(`${tag}:k`)).toBe('v');
  });

  it('never needs a seed that has died', async () => {
    // The seed is a proxy of its own: stopping it is the seed dying, for this client only.
    const seed = await startFaultProxy({ target: cluster.endpoints[0]! });
    const redis = await open({
      endpoints: [{ host: seed.host, port: seed.port }],
      cluster: { refreshInterval: 200 },
    });
    await seed.stop();
    const [source, target] = cluster.primaries as [ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, source, 'deadseed');
    await redis.set(`${tag}:k`, 'v');
    await cluster.migrateSlot(slot, target);
    await twoRefreshes();
    expect(await redirectedBy(redis, `${tag}:k`, source)).toBe(false);
    expect(await redis.set(`${tag}:k`, 'w')).toBe('OK');
  });
});

/** INCR workers on keys of every primary until stopped; acknowledged and ambiguous counts per key. */
function writeLoad(redis: RespireClient, keys: readonly string[]) {
  const acked = new Map(keys.map((key) => [key, 0]));
  const ambiguous = new Map(keys.map((key) => [key, 0]));
  const errors: unknown[] = [];
  let running = true;
  const workers = keys.map(async (key) => {
    while (running) {
      try {
        await redis.incr(key);
        acked.set(key, acked.get(key)! + 1);
      } catch (error) {
        errors.push(error);
        if (!(error instanceof RespireError)) throw error;
        if ((error as { written?: boolean }).written !== false) ambiguous.set(key, ambiguous.get(key)! + 1);
        // Not a busy loop while the owner is unreachable.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });
  return {
    acked,
    ambiguous,
    errors,
    /** Resolves once every key has `more` further acknowledged writes. */
    async progress(more: number): Promise<void> {
      const start = new Map(acked);
      await expect
        .poll(() => keys.every((key) => acked.get(key)! >= start.get(key)! + more), { timeout: 20_000 })
        .toBe(true);
    },
    async stop(): Promise<void> {
      running = false;
      await Promise.all(workers);
    },
  };
}

async function serverValues(redis: RespireClient, keys: readonly string[]): Promise<Map<string, number>> {
  const values = await Promise.all(keys.map((key) => redis.get(key)));
  return new Map(keys.map((key, i) => [key, Number(values[i] ?? 0)]));
}

describe('a primary failover under write load', () => {
  it('CLUSTER FAILOVER: writes resume on the new primary, each acknowledged INCR counted once', async () => {
    const redis = await open();
    const keys = cluster.primaries.flatMap((node) =>
      [0, 1].map((i) => `${tagOn(cluster, node, `fo${i}`).tag}:n`),
    );
    const load = writeLoad(redis, keys);
    await load.progress(5);
    const promoted = await cluster.failover(cluster.primaries[0]!);
    await load.progress(5);
    await load.stop();
    const values = await serverValues(redis, keys);
    for (const key of keys) {
      // A coordinated failover loses nothing; nothing may be replayed.
      expect(values.get(key)).toBeGreaterThanOrEqual(load.acked.get(key)!);
      expect(values.get(key)).toBeLessThanOrEqual(load.acked.get(key)! + load.ambiguous.get(key)!);
    }
    expect(cluster.node(promoted).role).toBe('primary');
  });

  it('SIGKILL: the replica is promoted, writes resume, and an ambiguous write is never replayed', async () => {
    const redis = await open({ commandTimeout: 1_000 });
    const victim = cluster.primaries[1]!;
    const keys = cluster.primaries.flatMap((node) =>
      [0, 1].map((i) => `${tagOn(cluster, node, `kill${i}`).tag}:n`),
    );
    const load = writeLoad(redis, keys);
    await load.progress(5);
    try {
      await cluster.killPrimary(victim);
      await load.progress(5);
      await load.stop();
      const values = await serverValues(redis, keys);
      for (const key of keys) {
        // Asynchronous replication may drop acknowledged writes in a SIGKILL (outside the client's
        // promise); what the client may never do is write one INCR twice.
        expect(values.get(key)).toBeLessThanOrEqual(load.acked.get(key)! + load.ambiguous.get(key)!);
      }
      for (const error of load.errors) {
        expect(error).toBeInstanceOf(RespireError);
        expect((error as { written?: boolean }).written).toBeTypeOf('boolean');
      }
    } finally {
      await load.stop();
      await cluster.restartNode(victim);
    }
  });
});

describe('a primary demoted by a failover', () => {
  it("serves the reads of readFrom 'replica' (every node's connections send READONLY)", async () => {
    const redis = await open({ readFrom: 'replica', cluster: { refreshInterval: 200 } });
    const primary = cluster.primaries[1]!;
    const key = `${tagOn(cluster, primary, 'demoted').tag}:k`;
    await redis.set(key, 'v'); // the client's node for it, as a primary: no READONLY
    const promoted = await cluster.failover(primary);
    // Once a refresh has the new roles, reads of the slot go to the demoted node and it serves
    // them; without READONLY it would answer MOVED to the new primary, which would serve them.
    await expect
      .poll(
        async () => {
          await resetStats(cluster);
          expect(await redis.get(key)).toBe('v');
          return (await commandCalls(cluster, primary)).get ?? 0;
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    expect((await commandCalls(cluster, promoted)).get).toBeUndefined();
  });
});

describe('commands queued on a dead owner', () => {
  it('move to the promoted replica once a refresh finds it, with nothing written twice', async () => {
    // A wait for a connection longer than the test: only moving the command can settle it.
    const redis = await open({ acquireTimeout: 120_000 });
    const victim = cluster.primaries[0]!;
    const key = `${tagOn(cluster, victim, 'queued').tag}:n`;
    await redis.set(key, '10');
    expect(await cluster.command(victim, ['WAIT', 1, 5_000])).toBe(1);
    const promotion = cluster.killPrimary(victim);
    try {
      // Until the client has seen the connection go, a command may be written and fail with it;
      // an unwritten one waits for a connection (a short abort shows it waiting).
      await expect
        .poll(async () => {
          const error = await outcome(redis.get(key, { signal: AbortSignal.timeout(100) }));
          return (error as Error).name;
        })
        .toBe('TimeoutError');
      const queued = redis.incr(key);
      const promoted = await promotion;
      expect(await queued).toBe(11);
      expect(await cluster.command(promoted, ['GET', key])).toBe('11');
    } finally {
      await promotion.catch(() => undefined);
      await cluster.restartNode(victim);
    }
  });
});

// Last in the file: the replica it removes stays out of the cluster (CLUSTER RESET HARD gives it a
// new id, which the kit does not follow), and the cluster is stopped after this test.
describe('a node gone from the map', () => {
  it('has its connections closed after the refresh', async () => {
    const redis = await open({ readFrom: 'replica', cluster: { refreshInterval: 200 } });
    const primary = cluster.primaries[2]!;
    const replica = cluster.replicasOf(primary)[0]!;
    const key = `${tagOn(cluster, primary, 'gone').tag}:k`;
    await redis.set(key, 'v');
    await expect.poll(() => redis.get(key)).toBe('v');
    const proxy = kit.proxied.proxyOf(replica);
    expect(proxy.connections).toBeGreaterThan(0);
    // The replica leaves the cluster: it forgets the others, and they forget it.
    await cluster.command(replica, ['CLUSTER', 'RESET', 'HARD']);
    for (const node of cluster.nodes.filter((node) => node.id !== replica.id && node.running)) {
      await cluster.command(node, ['CLUSTER', 'FORGET', replica.id]);
    }
    await proxy.waitForConnections(0, 15_000);
    expect(await outcome(redis.set(key, 'w'))).toBe('OK');
  });
});
