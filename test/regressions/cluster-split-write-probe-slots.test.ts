// Issue 11 "Routing" (MSET, DEL… split per slot) meets seed 000's half-open round (a probe slot per
// admission), against a real cluster behind the fault proxy: a split write with two parts for one
// node whose circuit's open interval had passed was checked part by part (each check takes
// nothing, so each saw the one free probe slot), then sent: the first part took the probe slot,
// the second was rejected with RespireCircuitOpenError (probe slots full), and the caller got that
// rejection, which says nothing was sent, while the first part and the healthy node's part were
// written. Now the check counts the parts per node: more parts than free probe slots reject the
// split whole, before any part is sent.
import { describe, expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import { outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { openCircuitOf } from './cluster-circuit-support.js';

const cluster = useRedisCluster();
const OPEN_MS = 60_000;
/** Trips after 3 failures; one probe at a time in half-open (the default). */
const BREAKER = { minimumFailureCount: 3, failureRateThreshold: 0.5, openDuration: OPEN_MS };
/** The client's clock, moved past the open interval by the test (no sleep). */
let skew = 0;
const clock = { now: () => performance.now() + skew };
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: BREAKER, clock });

describe('a split write with more parts for a half-open node than it has probe slots', () => {
  it('is rejected whole: no part is written', async () => {
    const redis = await kit.open();
    const [sick, well] = cluster.primaries as [ClusterNode, ClusterNode];
    const first = tagOn(cluster, sick, 'probeA');
    const second = tagOn(cluster, sick, 'probeB');
    expect(first.slot).not.toBe(second.slot);
    const onSickA = `${first.tag}:a`;
    const onSickB = `${second.tag}:b`;
    const onWell = `${tagOn(cluster, well, 'probeW').tag}:c`;
    await redis.mset({ [onSickA]: 'old', [onSickB]: 'old', [onWell]: 'old' });
    await openCircuitOf(kit, redis, sick, onSickA);
    // The open interval passes: the next admission is the one probe of the half-open round.
    skew += OPEN_MS + 1;

    const error = await outcome(redis.mset({ [onSickA]: 'new', [onSickB]: 'new', [onWell]: 'new' }));
    expect(error).toBeInstanceOf(RespireCircuitOpenError);
    expect(await cluster.command(well, ['GET', onWell])).toBe('old');
    expect(await cluster.command(sick, ['GET', onSickA])).toBe('old');
    expect(await cluster.command(sick, ['GET', onSickB])).toBe('old');
  });
});
