// Issue 11 "Routing" (MSET, DEL… split per slot) meeting `fireAndForget` (API.md: resolves once
// written, with no reply): a split command kept its parts' replies for the join, so a
// fire-and-forget MSET across slots resolved only when every part had answered, and with the
// joined reply, as if it had not been fire-and-forget. Its parts are now fire-and-forget too: it
// resolves with undefined once every part is written, and the writes still happen.
import { describe, expect, it } from 'vitest';
import { tagOn, useClusterClient } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const client = useClusterClient(cluster, { refreshInterval: 0 });

describe('a fire-and-forget command split across slots', () => {
  it('resolves with no reply, as one command does, and every part is written', async () => {
    const redis = client();
    const keys = cluster.primaries.map((primary, i) => `${tagOn(cluster, primary, `faf${i}`).tag}:k`);
    const pairs = keys.flatMap((key) => [key, 'fired']);
    expect(await redis.send(['MSET', ...pairs], { fireAndForget: true })).toBeUndefined();
    expect(await redis.send(['DEL', keys[0]!, keys[1]!], { fireAndForget: true })).toBeUndefined();
    expect(await redis.mget(keys)).toEqual([null, null, 'fired']);
  });
});
