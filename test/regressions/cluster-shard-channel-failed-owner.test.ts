// Issue 11 (pub/sub: shard channels follow their slot), the race behind the now and then failing
// cluster-shard-subscriber-failover: a refresh that read a map in which the dead primary was
// already marked `fail` but still owned the slot (its replica not promoted yet) "moved" its shard
// channels to the slot's owner by that map, the dead node itself. The subscribe there failed and
// the channel was forgotten, so nothing published through the promoted replica ever arrived. Now a
// channel stays on its node until a map gives the slot to another one. Made deterministic here:
// the replica does not fail over on its own, so the map shows the dead owner for as long as the
// test needs, then the test promotes it (CLUSTER FAILOVER TAKEOVER).
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import type { PubSubErrorEvent } from '../../src/index.js';
import { useClusterClient } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { recorder } from './pubsub-support.js';

const cluster = useRedisCluster();
// A call to the dead primary fails once it has waited `acquireTimeout` for a connection: 1 s
// instead of the default 5 s keeps those waits short.
const client = useClusterClient(cluster, { refreshInterval: 0 }, { acquireTimeout: 1_000 });

describe('a shard channel whose primary died, before its replica is promoted', () => {
  it('stays subscribed through a map that still gives the slot to the dead node', async () => {
    const redis = client();
    const errors: PubSubErrorEvent[] = [];
    redis.onPubSubError((_error, event) => errors.push(event));
    const channel = 'shard-failed-owner:news';
    const heard = recorder('after');
    await redis.ssubscribe(channel, heard.listener);
    const owner = cluster.ownerOf(keySlot(channel));
    const [replica] = cluster.replicasOf(owner);
    const live = await cluster.killPrimaryUnreplaced(owner);
    // A refresh reads that map: the SPUBLISH to the dead owner fails and asks for one.
    const before = await cluster.commandCalls(live, 'cluster|shards');
    await waitUntil(
      'a topology read of the client after the fail mark',
      async () => {
        await redis.send(['SPUBLISH', channel, 'before']).catch(() => undefined);
        return (await cluster.commandCalls(live, 'cluster|shards')) > before ? true : 'none yet';
      },
      { timeoutMs: 10_000 },
    );
    await cluster.command(replica!, ['CLUSTER', 'FAILOVER', 'TAKEOVER']);
    await expect
      .poll(
        async () => {
          await redis.send(['SPUBLISH', channel, 'after']).catch(() => undefined);
          return heard.heard.length;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBeGreaterThan(0);
    expect(await cluster.command(replica!, ['PUBSUB', 'SHARDNUMSUB', channel])).toEqual([channel, 1]);
    expect(errors).toEqual([]);
  }, 60_000);
});
