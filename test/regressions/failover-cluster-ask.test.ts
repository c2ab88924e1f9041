// A failover group switch moves what the old member never wrote (issue 14 "Switching"). A Cluster
// member's command redirected by ASK waits in its target's queue as a pair: ASKING, then the
// attempt (cluster-attempt.ts). The switch took ASKING alone to the new member (sent there as a
// command of its own), and left the attempt, marked as a transaction step, on the old member,
// where it went without its ASKING once the target connected. The pair now moves as the caller's
// command. Real cluster mid-migration (the key already on the importing node, so the source
// answers ASK); the importing node's fault proxy refuses connections, so the pair waits.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EndpointNode } from '../../src/client/node/endpoint-node.js';
import type { RespireFailoverGroup } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { connectClusterGroup } from '../failover/support.js';
import type { SlotMigration } from '../kit/redis-cluster.js';
import { useRedisCluster, useRedisServer } from '../kit/vitest-redis.js';

const cluster = useRedisCluster({ replicasPerPrimary: 0 });
const standalone = useRedisServer();
const kit = useProxiedClients(cluster);
const groups: RespireFailoverGroup[] = [];
const migrations: SlotMigration[] = [];
afterEach(async () => {
  for (const group of groups.splice(0)) group.destroy();
  vi.restoreAllMocks();
  for (const migration of migrations.splice(0)) await cluster.finishMigration(migration);
});

describe('a failover switch away from a Cluster member', () => {
  it('moves a command waiting with its ASKING for the importing node, as one command', async () => {
    const { proxied } = kit;
    const [source, target] = [cluster.primaries[0]!, cluster.primaries[1]!];
    const group = await connectClusterGroup(cluster, proxied, standalone, { acquireTimeout: 20_000 });
    groups.push(group);
    const { tag, slot } = tagOn(cluster, source, 'fg-ask');
    const key = `${tag}:k`;
    await cluster.command(source, ['SET', key, 'cluster']);
    await group.members[1]!.client!.set(key, 'single');
    const migration = await cluster.beginMigration(slot, target);
    migrations.push(migration);
    await cluster.moveKeys(migration);
    const importing = proxied.proxyOf(target);
    await importing.setMode('refuse');
    await importing.closeAllConnections();
    const sends = vi.spyOn(EndpointNode.prototype, 'send');

    const read = group.client.get(key);
    await vi.waitFor(
      () => expect(sends.mock.calls.some(([, , prefix]) => prefix?.name === 'ASKING')).toBe(true),
      { timeout: 5_000 },
    );
    group.switchTo('single');
    expect(await outcomeWithin(read, 5_000)).toEqual({ value: 'single' });
    // Nothing but the caller's GET reached the new member: no ASKING of its own.
    const asked = sends.mock.calls.filter(([command]) => command.name === 'ASKING');
    expect(asked).toEqual([]);
  });
});
