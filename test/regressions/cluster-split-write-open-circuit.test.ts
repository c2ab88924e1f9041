// Issue 11 "Routing" (MSET, DEL… across slots split per slot) meets "Circuits" (an open node affects
// only commands routed to it), against a real cluster with every node behind the fault proxy: a
// split write one of whose parts goes to a node whose circuit is open failed with
// RespireCircuitOpenError, which says nothing was sent, while its other parts were written (a DEL
// deleted the healthy node's keys, an MSET set them). Now such a split is rejected whole, before
// any part is sent; the healthy node's keys are untouched.
import { describe, expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import { outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { openCircuitOf, TRIP_AFTER_THREE } from './cluster-circuit-support.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: TRIP_AFTER_THREE });

describe('a split write with a part for a node whose circuit is open', () => {
  it('is rejected whole: no part is sent, the healthy node’s keys stay as they were', async () => {
    const redis = await kit.open();
    const [sick, well] = cluster.primaries as [ClusterNode, ClusterNode];
    const onSick = `${tagOn(cluster, sick, 'split').tag}:a`;
    const onWell = `${tagOn(cluster, well, 'split').tag}:b`;
    await redis.mset({ [onSick]: 'sick', [onWell]: 'well' });
    // Three reads time out on the black-holed node: its circuit opens.
    await openCircuitOf(kit, redis, sick, onSick);

    const writes: (() => Promise<unknown>)[] = [
      () => redis.del([onWell, onSick]),
      () => redis.mset({ [onWell]: 'new', [onSick]: 'new' }),
      () => redis.unlink([onWell, onSick]),
    ];
    for (const write of writes) {
      const error = await outcome(write());
      expect(error).toBeInstanceOf(RespireCircuitOpenError);
      expect((error as RespireCircuitOpenError).endpoint).toEqual(kit.proxied.dialled(sick));
      expect(await cluster.command(well, ['GET', onWell])).toBe('well');
    }
    // Reads of the healthy node alone still work.
    expect(await redis.get(onWell)).toBe('well');
  });
});
