// Issue 11 "Routing" (keyless commands by their request-policy tip, with the response policy),
// against a real cluster whose nodes rename DBSIZE to DBS, KEYS to KS and FLUSHALL to FA, so that
// the client's command table knows none of them (as with a module's or a newer server's keyless
// command). The client asked the server's COMMAND INFO for their key specs (key-lookup.ts) but
// ignored that reply's tips: each ran on one primary taken in turn, so `DBS` counted one shard's
// keys, `KS` listed one shard's, and `FA` flushed one shard and left the others' data. Now the
// server's `request_policy`/`response_policy` tips route them as the table's own would be.
import { describe, expect, it } from 'vitest';
import { tagOn, useClusterClient } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster({
  configLines: ['rename-command DBSIZE DBS', 'rename-command KEYS KS', 'rename-command FLUSHALL FA'],
});
const client = useClusterClient(cluster, { refreshInterval: 0 });

describe('a keyless command the table does not know', () => {
  it('follows the server’s request and response policy tips (all_shards, agg_sum)', async () => {
    const redis = client();
    const keys = cluster.primaries.map((primary, i) => `${tagOn(cluster, primary, `tips${i}`).tag}:k`);
    for (const key of keys) await redis.set(key, 'v');
    // Asked more than once: a primary taken in turn would give a different answer each time.
    for (let i = 0; i < 3; i++) {
      expect(await redis.send(['DBS'])).toBe(keys.length);
      expect([...((await redis.send(['KS', '*'])) as string[])].sort()).toEqual([...keys].sort());
    }
    expect(await redis.send(['FA'])).toBe('OK');
    for (const primary of cluster.primaries) expect(await cluster.command(primary, ['DBS'])).toBe(0);
  });
});
