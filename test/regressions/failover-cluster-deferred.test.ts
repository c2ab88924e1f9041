// A failover group switch moves what the old member never accepted (issue 14 "Switching"). A
// Cluster member also holds commands in no node's queue while it asks the cluster something first:
// a command the command table does not know waits for its keys' lookup (key-lookup.ts), and a
// retry whose slot owner is lost waits for a topology refresh (seed 000 "Cluster slot owners").
// A switch during that wait left them there: once the lookup or the refresh ended they were sent
// to the old member, or failed with its error. They now move with the member's other unsent
// commands. Real cluster whose nodes rename ZUNIONSTORE to ZUS (as with a module's command), every
// primary black-holed through the fault proxy so that the lookup gets no answer; the standalone
// member renames it too.
import { afterEach, describe, expect, it } from 'vitest';
import type { RespireFailoverGroup } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { connectClusterGroup } from '../failover/support.js';
import { useRedisCluster, useRedisServer } from '../kit/vitest-redis.js';

const RENAME = ['rename-command ZUNIONSTORE ZUS'];
const cluster = useRedisCluster({ replicasPerPrimary: 0, configLines: RENAME });
const standalone = useRedisServer({ configLines: RENAME });
const kit = useProxiedClients(cluster);
const groups: RespireFailoverGroup[] = [];
afterEach(() => {
  for (const group of groups.splice(0)) group.destroy();
});

describe('a failover switch away from a Cluster member', () => {
  it('moves a command waiting for its key lookup to the new member', async () => {
    const { proxied } = kit;
    const group = await connectClusterGroup(cluster, proxied, standalone, { commandTimeout: 20_000 });
    groups.push(group);
    const { tag } = tagOn(cluster, cluster.primaries[0]!, 'fg-lookup');
    await group.members[1]!.client!.zadd(`${tag}:a`, [{ score: 1, member: 'm' }]);
    // Every primary's connection open first: the lookup then waits for a reply that never comes.
    for (const [i, primary] of cluster.primaries.entries()) {
      await group.client.get(`${tagOn(cluster, primary, `fg-warm${i}`).tag}:k`);
    }
    for (const primary of cluster.primaries) await proxied.proxyOf(primary).setMode('blackhole');
    const stored = group.client.send(['ZUS', `${tag}:out`, '1', `${tag}:a`]);
    group.switchTo('single');
    expect(await outcomeWithin(stored, 5_000)).toEqual({ value: 1 });
    expect(await group.client.send(['ZCARD', `${tag}:out`])).toBe(1);
  });
});
