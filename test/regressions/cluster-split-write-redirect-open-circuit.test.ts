// Issue 11 "Routing" (MSET, DEL… across slots split per slot, not atomic) meets "Circuits" (MOVED
// and ASK check the target before sending), against a real cluster behind the fault proxy: a split
// write whose part was redirected (ASK during a migration, MOVED after it) to a node whose circuit
// is open failed with that part's RespireCircuitOpenError, which says nothing was sent, while its
// other part had been written. Now the caller gets a RespireConnectionError with `written: true`
// that says which parts ran and which were not sent, the circuit's rejection as its cause.
import { describe, expect, it } from 'vitest';
import { RespireCircuitOpenError, RespireConnectionError } from '../../src/index.js';
import { commandCalls, outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { openCircuitOf, TRIP_AFTER_THREE } from './cluster-circuit-support.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster, {
  commandTimeout: 300,
  connectTimeout: 500,
  circuitBreaker: TRIP_AFTER_THREE,
});

/** MOVED and ASK error replies `node` has sent (INFO errorstats). */
async function redirectsFrom(node: ClusterNode): Promise<{ moved: number; ask: number }> {
  const info = String(await cluster.command(node, ['INFO', 'errorstats']));
  const count = (code: string) => Number(new RegExp(`errorstat_${code}:count=(\\d+)`).exec(info)?.[1] ?? 0);
  return { moved: count('MOVED'), ask: count('ASK') };
}

/** CLUSTER SHARDS calls on every node: the client's topology reads. */
async function topologyReads(): Promise<number> {
  let total = 0;
  for (const node of cluster.nodes) total += (await commandCalls(cluster, node))['cluster|shards'] ?? 0;
  return total;
}

/** Expects the partly-applied error: the first key ran, the second was not sent (C's circuit). */
function expectPartlyApplied(error: unknown, name: string, sick: ClusterNode): void {
  expect(error).not.toBeInstanceOf(RespireCircuitOpenError);
  expect(error).toBeInstanceOf(RespireConnectionError);
  const partial = error as RespireConnectionError;
  expect(partial.written).toBe(true);
  expect(partial.message).toContain(`${name} was partly applied`);
  expect(partial.message).toContain('keys #1 ran; keys #2 not sent');
  expect(partial.cause).toBeInstanceOf(RespireCircuitOpenError);
  expect(partial.endpoint).toEqual(kit.proxied.dialled(sick));
}

describe('a split write whose part is redirected to a node whose circuit is open', () => {
  it('says which parts ran (ASK during a migration, MOVED after it), never "nothing was sent"', async () => {
    const redis = await kit.open();
    const [well, source, sick] = cluster.primaries as [ClusterNode, ClusterNode, ClusterNode];
    const onWell = `${tagOn(cluster, well, 'redirect-well').tag}:a`;
    const moving = tagOn(cluster, source, 'redirect-moving');
    const onMoving = `${moving.tag}:b`;
    const onSick = `${tagOn(cluster, sick, 'redirect-sick').tag}:c`;
    await redis.mset({ [onWell]: 'old', [onMoving]: 'old' });
    await redis.set(onSick, 'x');
    await openCircuitOf(kit, redis, sick, onSick);

    // ASK: the moving slot's keys are on the sick node; the client's map still names the source.
    const migration = await cluster.beginMigration(moving.slot, sick);
    await cluster.moveKeys(migration);
    const asksBefore = (await redirectsFrom(source)).ask;
    const asked = await outcome(redis.mset({ [onWell]: 'asked', [onMoving]: 'asked' }));
    expect((await redirectsFrom(source)).ask).toBe(asksBefore + 1);
    expectPartlyApplied(asked, 'MSET', sick);
    expect(await cluster.command(well, ['GET', onWell])).toBe('asked');

    // MOVED: the migration ends; the client has not read the topology since the circuit opened.
    // The reads the circuit's timeouts asked for end first (no event says so: their count settles).
    let reads = -1;
    await expect
      .poll(
        async () => {
          const before = reads;
          reads = await topologyReads();
          return reads === before;
        },
        { interval: 600, timeout: 10_000 },
      )
      .toBe(true);
    await cluster.finishMigration(migration);
    // The redirected part was not written (an importing node would answer MOVED before this).
    expect(await cluster.command(sick, ['GET', onMoving])).toBe('old');
    const movedBefore = (await redirectsFrom(source)).moved;
    const deleted = await outcome(redis.del([onWell, onMoving]));
    expect((await redirectsFrom(source)).moved).toBe(movedBefore + 1);
    expectPartlyApplied(deleted, 'DEL', sick);
    expect(await cluster.command(well, ['EXISTS', onWell])).toBe(0);
    expect(await cluster.command(sick, ['GET', onMoving])).toBe('old');
  });
});
