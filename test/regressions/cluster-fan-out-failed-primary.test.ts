// Issue 11 "Routing" (keyless commands by their request-policy tip: FLUSHALL on every primary,
// DBSIZE summed over them) meets "Health" (a failed owner keeps its slots until a replica is
// promoted), against a real cluster: a fan-out to every shard went to the primaries the map listed
// `online`, so while a dead primary was marked `fail` and still owned its slots, FLUSHALL answered
// 'OK' having flushed two shards of three (the dead one's keys live on in its replica, which is
// promoted later) and DBSIZE answered a third too few, both as if complete. Now an `all_shards`
// fan-out goes to every slot owner, a failed one too: its part fails or waits like the slot's other
// commands (README "Health"), and the caller learns that the fan-out is not whole. Made
// deterministic as in cluster-shard-channel-failed-owner: the replica does not fail over on its own.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { outcome, tagOn, useClusterClient } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();
// A call to the dead primary fails once it has waited `acquireTimeout` for a connection: 1 s
// instead of the default 5 s keeps the three such waits here short.
const client = useClusterClient(cluster, { refreshInterval: 0 }, { acquireTimeout: 1_000 });

describe('a fan-out to every shard while a dead primary still owns its slots', () => {
  it('does not answer as if whole: FLUSHALL and DBSIZE reject', async () => {
    const redis = client();
    const dead = cluster.primaries[0] as ClusterNode;
    const [replica] = cluster.replicasOf(dead);
    const onDead = `${tagOn(cluster, dead, 'fanout-dead').tag}:a`;
    const keys = cluster.primaries.map((primary, i) => `${tagOn(cluster, primary, 'fanout').tag}:${i}`);
    for (const key of keys) await redis.set(key, 'v');
    await redis.set(onDead, 'v');
    const live = await cluster.killPrimaryUnreplaced(dead);
    // A refresh reads that map: the GET to the dead owner fails and asks for one.
    const before = await cluster.commandCalls(live, 'cluster|shards');
    await waitUntil(
      'a topology read of the client after the fail mark',
      async () => {
        await redis.get(onDead).catch(() => undefined);
        return (await cluster.commandCalls(live, 'cluster|shards')) > before ? true : 'none yet';
      },
      { timeoutMs: 10_000 },
    );

    const flushed = await outcome(redis.flushall());
    expect(flushed).toBeInstanceOf(RespireConnectionError);
    expect((flushed as RespireConnectionError).written).toBe(true);
    expect(await outcome(redis.dbsize())).toBeInstanceOf(Error);
    // The dead shard's keys are still there, on the replica that would be promoted.
    expect(await cluster.command(replica!, ['DBSIZE'])).toBeGreaterThan(0);
  }, 60_000);
});
