// Issue 11 "Routing" (MSET, DEL… split per slot, not atomic) meets a part the server refuses after
// another part ran, against a real cluster: with cluster-require-full-coverage off, a slot deleted
// from every node after the client read its map (it still names the old owner), a split MSET and
// DEL wrote their part for a served slot and failed with the other part's CLUSTERDOWN, which says
// the command was not run: the caller would send it again, or believe the served key untouched.
// (cluster-split-write-unserved-slot covers the map that already shows the slot unserved: nothing
// is sent.) Now a refused part of a write some other part of which ran rejects with the partly
// applied write's RespireConnectionError (`written: true`), the server's error as `cause`.
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { RespireClient, RespireConnectionError, RespireServerError } from '../../src/index.js';
import { outcome, tagOn } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();

describe('a split write whose slot stops being served after the client read the map', () => {
  it('rejects as partly applied, not with the refused part’s CLUSTERDOWN', async () => {
    const [owner, well] = cluster.primaries as [ClusterNode, ClusterNode];
    const unserved = tagOn(cluster, owner, 'later-unserved');
    const onWell = `${tagOn(cluster, well, 'later-served').tag}:b`;
    const orphan = `${unserved.tag}:a`;
    expect(keySlot(orphan)).toBe(unserved.slot);
    const redis = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      cluster: { refreshInterval: 0 },
    });
    try {
      await redis.mset({ [onWell]: 'old', [orphan]: 'old' });
      await cluster.command(owner, ['DEL', orphan]);
      for (const node of cluster.nodes) {
        await cluster.command(node, ['CONFIG', 'SET', 'cluster-require-full-coverage', 'no']);
        await cluster.command(node, ['CLUSTER', 'DELSLOTS', String(unserved.slot)]).catch(() => undefined);
      }
      const error = await outcome(redis.mset({ [onWell]: 'new', [orphan]: 'new' }));
      expect(await cluster.command(well, ['GET', onWell])).toBe('new');
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect((error as RespireConnectionError).written).toBe(true);
      expect((error as RespireConnectionError).cause).toBeInstanceOf(RespireServerError);
      expect(((error as RespireConnectionError).cause as RespireServerError).code).toBe('CLUSTERDOWN');
    } finally {
      await redis.close();
    }
  });
});
