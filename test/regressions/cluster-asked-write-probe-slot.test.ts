// Issue 13 (durability batches, hash imports) meets seed 000's "Redis Cluster" rule that one
// admission covers ASKING and the command behind it: after an ASK, a durability batch's writes and
// an import's cleanup DEL went out as an unchecked ASKING followed by the checked command. When the
// target's circuit rejected that command at its write (a half-open target with one probe slot and
// two writes), ASKING had already gone alone, leaving the dedicated connection asking for whatever
// it carried next. ASKING is now the checked step (as for routed commands and transactions): a
// rejection takes the pair, and the target sees ASKING only before a command it runs.
import { describe, expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { openCircuitOf, TRIP_AFTER_THREE } from './cluster-circuit-support.js';

const cluster = useRedisCluster();
/** The client's clock, moved past the open interval by the test (no sleep). */
let skew = 0;
const clock = { now: () => performance.now() + skew };
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: TRIP_AFTER_THREE, clock });

async function askingCalls(node: ClusterNode): Promise<number> {
  const info = String(await cluster.command(node, ['INFO', 'commandstats']));
  return Number(/cmdstat_asking:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

describe('a durability batch redirected by ASK to a half-open node with one probe slot', () => {
  it('runs one write behind one ASKING; the rejected write sends no ASKING', async () => {
    const redis = await kit.open();
    const [source, target] = cluster.primaries as [ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, source, 'asked-probe');
    await redis.get(`${tag}:warm`); // the client knows the slot's owner
    const onTarget = `${tagOn(cluster, target, 'asked-probe-sick').tag}:k`;
    await redis.get(onTarget); // its connection made
    await openCircuitOf(kit, redis, target, onTarget);
    const migration = await cluster.beginMigration(slot, target);
    try {
      // The open interval passes: the target's next admission is the one probe of its half-open round.
      skew += TRIP_AFTER_THREE.openDuration + 1;
      await cluster.command(target, ['CONFIG', 'RESETSTAT']);

      const batch = redis.durable({ replicas: 0, timeout: 100 });
      const first = batch.set(`${tag}:a`, '1');
      const second = batch.set(`${tag}:b`, '2');
      const report = await batch.execute();

      expect(await first).toBe('OK');
      await expect(second).rejects.toBeInstanceOf(RespireCircuitOpenError);
      expect(report.acknowledged).toBe(false);
      expect(await askingCalls(target)).toBe(1);
    } finally {
      await cluster.finishMigration(migration);
    }
  });
});
