// Regression (Cluster): a node's tracking connection starts only once the client uses that node.
// A cached reply saying a key is absent (GET → null), read from the slot's owner, is not
// invalidated when the empty slot moves (no key migrates, so no node reports a change); if the
// client has not used the new owner, no tracking connection of its hears the key being written
// there, and the cached null is served for good (hits send nothing, so no MOVED tells the client).
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { untilCached } from '../client/cache/support.js';
import { tagOn } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();

describe('Cluster client-side cache and a slot that moves', () => {
  const clients: RespireClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy();
  });

  it('drops a cached null once the key is written on the new owner of its slot', async () => {
    const [seed, source, target] = cluster.primaries;
    const redis = await RespireClient.connect({
      endpoints: [{ host: seed!.host, port: seed!.port }],
      useCluster: true,
      clientSideCache: { maxEntries: 100 },
    });
    clients.push(redis);
    const { tag, slot } = tagOn(cluster, source!, 'moving');
    const key = `${tag}:absent`;
    expect(await untilCached(redis, () => redis.get(key))).toBeNull();
    await cluster.migrateSlot(slot, target!);
    await cluster.command(target!, ['SET', key, 'now-present']);
    await waitUntil(
      'the write heard',
      async () => (await redis.get(key)) === 'now-present' || 'still the cached null',
      { timeoutMs: 5000, intervalMs: 20 },
    );
    await cluster.migrateSlot(slot, source!);
  });
});
