// Issue 11 "Routing" (pub/sub: `ssubscribe` on the slot owner, resubscribed when the slot moves),
// against a real cluster: a shard channel followed its slot only when the server said so (a
// `sunsubscribe` push). A primary that dies says nothing: its shard subscriptions stayed on its
// node, reconnecting to a dead address, so nothing SPUBLISHed through the promoted replica arrived.
// Now a new map that no longer lists their node online moves them to the slot's new owner.
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { useClusterClient } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { recorder } from './pubsub-support.js';

const cluster = useRedisCluster();
const client = useClusterClient(cluster, { refreshInterval: 0 });

describe('a shard channel whose primary dies', () => {
  it('moves to the promoted replica and hears what is published there', async () => {
    const redis = client();
    const channel = 'shard-failover:news';
    const heard = recorder('after');
    await redis.ssubscribe(channel, heard.listener);
    const owner = cluster.ownerOf(keySlot(channel));
    const promoted = await cluster.killPrimary(owner);
    // The client learns of the failover from its own traffic (a refresh after the lost connection).
    await expect
      .poll(
        async () => {
          await redis.send(['SPUBLISH', channel, 'after']).catch(() => undefined);
          return heard.heard.length;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBeGreaterThan(0);
    expect(await cluster.command(promoted, ['PUBSUB', 'SHARDNUMSUB', channel])).toEqual([channel, 1]);
  });
});
