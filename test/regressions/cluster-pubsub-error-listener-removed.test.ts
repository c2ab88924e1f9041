// Issue 11 "Routing" (pub/sub on Cluster nodes) meeting `onPubSubError`: a Cluster client makes its
// nodes on first use, and a listener is added to every node's subscriber, present and future. The
// function `onPubSubError` returns took the listener off the nodes that existed when it was added
// only: a node made between adding and removing kept it, so a removed listener went on hearing that
// node's errors (a shard channel's throwing listener, a failed classic move). Now removing it takes
// it off every node.
import { describe, expect, it } from 'vitest';
import type { PubSubErrorEvent } from '../../src/index.js';
import { tagOn, useClusterClient } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const client = useClusterClient(cluster, { refreshInterval: 0 });

describe('onPubSubError on a Cluster client', () => {
  it('a removed listener hears nothing from a node made while it was added', async () => {
    const redis = client();
    const kept: PubSubErrorEvent[] = [];
    const removed: PubSubErrorEvent[] = [];
    redis.onPubSubError((_error, event) => kept.push(event));
    const remove = redis.onPubSubError((_error, event) => removed.push(event));
    // Each primary's node is made now, with both listeners (none existed before: keys route lazily).
    const channels = cluster.primaries.map((primary, i) => `${tagOn(cluster, primary, `err${i}`).tag}:c`);
    for (const channel of channels) await redis.get(channel);
    remove();
    let thrown = 0;
    for (const channel of channels) {
      await redis.ssubscribe(channel, () => {
        thrown++;
        throw new Error('listener failed');
      });
    }
    for (const channel of channels) await redis.send(['SPUBLISH', channel, 'm']);
    await expect.poll(() => kept.length).toBe(channels.length);
    expect(thrown).toBe(channels.length);
    expect(kept.every((event) => event.source === 'listener')).toBe(true);
    expect(removed).toEqual([]);
  });
});
