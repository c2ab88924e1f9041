// Issue 11 "Routing" (keyless commands by their request-policy tip: FLUSHALL to every primary) meets
// "Circuits" (an open node affects only commands routed to it; seed 000: a rejection means nothing
// was sent), against a real cluster behind the fault proxy: a FLUSHALL with one primary's circuit
// open was written to every other primary, which flushed, and the caller got that primary's
// RespireCircuitOpenError, saying nothing was sent. The split MSET/DEL/UNLINK had been fixed for
// this (cluster-split-write-open-circuit.test.ts); the fan-out had not. Now a fan-out with a part
// its node's circuit rejects is rejected whole before any part is sent.
import { describe, expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import { outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { openCircuitOf, TRIP_AFTER_THREE } from './cluster-circuit-support.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: TRIP_AFTER_THREE });

describe('a FLUSHALL fanned out to every primary, one of whose circuits is open', () => {
  it('is rejected whole: no primary is flushed', async () => {
    const redis = await kit.open();
    const [sick, well] = cluster.primaries as [ClusterNode, ClusterNode];
    const onSick = `${tagOn(cluster, sick, 'fan').tag}:a`;
    const onWell = `${tagOn(cluster, well, 'fan').tag}:b`;
    await redis.mset({ [onSick]: 'sick', [onWell]: 'well' });
    await openCircuitOf(kit, redis, sick, onSick);

    const error = await outcome(redis.send(['FLUSHALL']));
    expect(error).toBeInstanceOf(RespireCircuitOpenError);
    expect((error as RespireCircuitOpenError).endpoint).toEqual(kit.proxied.dialled(sick));
    expect(await cluster.command(well, ['GET', onWell])).toBe('well');
    expect(await cluster.command(sick, ['GET', onSick])).toBe('sick');
  });
});
