// A failover group switch moves what the old member never accepted (issue 14 "Switching"; seed 000
// "Retries": "a failover group's new active member"). A Cluster member's command waiting out a
// TRYAGAIN backoff (cluster/redirect-backoff.ts) is in no node's queue: the switch did not see it,
// and once the backoff passed it went to the old member again. It now moves to the new member with
// the commands queued there. TRYAGAIN comes from a real Cluster: an MGET whose keys a slot
// migration split. The Cluster member's clock parks its timers of 10 ms and more (the backoff's
// first hop is 10 ms), so the test knows when the command waits out its backoff, and the old member
// never sends it again unless the test fires the timer. The same for a transaction whose EXEC was
// answered TRYAGAIN (nothing of it ran), waiting out its backoff to be sent again whole.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireFailoverGroup } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { resetStats, tagOn } from '../cluster/cluster-support.js';
import { HEALTH } from '../failover/support.js';
import { type ParkedClock, parkedClock } from '../kit/parked-clock.js';
import type { SlotMigration } from '../kit/redis-cluster.js';
import { useRedisCluster, useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster({ replicasPerPrimary: 0 });
const standalone = useRedisServer();
const migrations: SlotMigration[] = [];
const groups: RespireFailoverGroup[] = [];

afterEach(async () => {
  for (const group of groups.splice(0)) group.destroy();
  for (const migration of migrations.splice(0)) await cluster.finishMigration(migration);
});

async function connectGroup(clock: ParkedClock): Promise<RespireFailoverGroup> {
  const group = await RespireFailoverGroup.connect({
    members: [
      {
        name: 'single',
        weight: 1,
        options: { endpoints: [{ host: standalone.host, port: standalone.port }] },
      },
      {
        name: 'cluster',
        weight: 2,
        options: {
          useCluster: true,
          endpoints: [cluster.endpoints[0]!],
          cluster: { refreshInterval: 0, maxRedirections: 1000 },
          clock,
        },
      },
    ],
    healthCheck: HEALTH,
    failbackDelay: 600_000,
  });
  groups.push(group);
  expect(group.active).toBe('cluster');
  return group;
}

/** Keys of one slot on the first primary, split by a migration begun to the second (TRYAGAIN). */
async function splitKeys(group: RespireFailoverGroup, salt: string): Promise<string[]> {
  const source = cluster.primaries[0]!;
  const { tag, slot } = tagOn(cluster, source, salt);
  const keys = [`${tag}:0`, `${tag}:1`, `${tag}:2`, `${tag}:3`];
  for (const key of keys) {
    await cluster.command(source, ['SET', key, 'cluster']);
    await group.members[0]!.client!.set(key, 'single');
  }
  const migration = await cluster.beginMigration(slot, cluster.primaries[1]!);
  migrations.push(migration);
  await cluster.moveKeys(migration, 2);
  await resetStats(cluster);
  return keys;
}

/** Waits until the first TRYAGAIN's backoff is parked; switches; fires the old member's timer if still armed. */
async function switchDuringBackoff(group: RespireFailoverGroup, clock: ParkedClock): Promise<void> {
  await waitUntil(
    'the first TRYAGAIN backoff parked',
    async () => (clock.parked.some((timer) => timer.delayMs === 10) ? true : 'not yet'),
    { timeoutMs: 5_000 },
  );
  group.switchTo('single');
  // The old member's backoff, if still armed, sends it there again now.
  for (const timer of clock.parked) if (timer.delayMs === 10) timer.fire();
}

describe('a failover switch away from a Cluster member', () => {
  it('moves a command waiting out a TRYAGAIN backoff to the new member', async () => {
    const clock = parkedClock(10);
    const group = await connectGroup(clock);
    const keys = await splitKeys(group, 'fg-backoff');
    const reply = group.client.send(['MGET', ...keys]);
    await switchDuringBackoff(group, clock);
    expect(await outcomeWithin(reply, 5_000)).toEqual({ value: ['single', 'single', 'single', 'single'] });
    // Sent once to the old member, answered TRYAGAIN there (a rejected call), never again.
    const stats = String(await cluster.command(cluster.primaries[0]!, ['INFO', 'commandstats']));
    expect(/cmdstat_mget:.*rejected_calls=(\d+)/.exec(stats)?.[1]).toBe('1');
  });

  it('moves a transaction waiting out a TRYAGAIN backoff to the new member, whole', async () => {
    const clock = parkedClock(10);
    const group = await connectGroup(clock);
    const keys = await splitKeys(group, 'fg-tx-backoff');
    const tx = group.client.multi();
    const read = tx.send(['MGET', ...keys]);
    const set = tx.set(keys[0]!, 'moved');
    const executed = tx.exec();
    await switchDuringBackoff(group, clock);
    expect(await outcomeWithin(executed, 5_000)).toEqual({
      value: [['single', 'single', 'single', 'single'], 'OK'],
    });
    expect(await read).toEqual(['single', 'single', 'single', 'single']);
    expect(await set).toBe('OK');
    // EXEC answered TRYAGAIN (EXECABORT) once on the old member, never sent there again.
    const stats = String(await cluster.command(cluster.primaries[0]!, ['INFO', 'commandstats']));
    expect(/cmdstat_exec:calls=\d+,.*failed_calls=(\d+)/.exec(stats)?.[1]).toBe('1');
    expect(await group.members[0]!.client!.get(keys[0]!)).toBe('moved');
  });
});
