// Issue 11 "Routing" (MSET, DEL… split per slot; a split write with a part that cannot be sent is
// rejected whole: README) meets an unserved slot, against a real cluster: with
// cluster-require-full-coverage off and one slot deleted from every node, a split MSET with a key
// in that slot wrote its other parts, then failed with the unserved part's CLUSTERDOWN. Now the
// unserved part rejects the split whole before any part is sent, as an open circuit does.
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { RespireClient, RespireServerError } from '../../src/index.js';
import { outcome, tagOn } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();

describe('a split write with a part for a slot no node serves', () => {
  it('is rejected whole: the served part is not written', async () => {
    const [owner, well] = cluster.primaries as [ClusterNode, ClusterNode];
    const unserved = tagOn(cluster, owner, 'unserved');
    const onWell = `${tagOn(cluster, well, 'served').tag}:b`;
    const orphan = `${unserved.tag}:a`;
    expect(keySlot(orphan)).toBe(unserved.slot);
    await cluster.command(well, ['SET', onWell, 'old']);
    for (const node of cluster.nodes) {
      await cluster.command(node, ['CONFIG', 'SET', 'cluster-require-full-coverage', 'no']);
      await cluster.command(node, ['CLUSTER', 'DELSLOTS', String(unserved.slot)]).catch(() => undefined);
    }
    const redis = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      cluster: { refreshInterval: 0 },
    });
    try {
      const writes: (() => Promise<unknown>)[] = [
        () => redis.mset({ [onWell]: 'new', [orphan]: 'new' }),
        () => redis.del([onWell, orphan]),
      ];
      for (const write of writes) {
        const error = await outcome(write());
        expect(error).toBeInstanceOf(RespireServerError);
        expect((error as RespireServerError).code).toBe('CLUSTERDOWN');
        expect(await cluster.command(well, ['GET', onWell])).toBe('old');
      }
    } finally {
      await redis.close();
    }
  });
});
