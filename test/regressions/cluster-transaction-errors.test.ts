// Issue 11 "Routing" (transactions and WATCH sessions on their slot's node), against a real cluster:
// - CLUSTERDOWN inside a transaction reaches the caller as a clear error at once: not a hang, and
//   not a resend of an EXEC that was written.
// - WATCH meeting ASK (its slot mid-migration, the key already gone from the source) fails with a
//   clear error: ASK redirects one command (PROTOCOL.md §2.3), and a session's later MULTI/EXEC
//   would need ASKING too (src/cluster/README.md "Transactions").
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { commandCalls, outcome, resetStats, tagOn, useClusterClient } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const client = useClusterClient(cluster, { refreshInterval: 0, maxRedirections: 3 });

describe('CLUSTERDOWN inside a transaction', () => {
  it('reaches the caller as a CLUSTERDOWN error, with EXEC sent once', async () => {
    const redis = client();
    const owner = cluster.primaries[0]!;
    const { tag, slot } = tagOn(cluster, owner, 'down');
    const key = `${tag}:k`;
    await redis.set(key, 'before');
    // The owner forgets its slot: it now answers CLUSTERDOWN for the slot's keys (queue-time error).
    await cluster.command(owner, ['CLUSTER', 'DELSLOTS', String(slot)]);
    try {
      await resetStats(cluster);
      const tx = redis.multi();
      tx.set(key, 'during');
      tx.get(key);
      const error = await outcome(tx.exec());
      expect(error).toBeInstanceOf(RespireServerError);
      expect((error as RespireServerError).code).toBe('CLUSTERDOWN');
      expect((error as RespireServerError).message).toMatch(/transaction/i);
      expect((await commandCalls(cluster, owner)).exec).toBe(1);
    } finally {
      await cluster.command(owner, ['CLUSTER', 'ADDSLOTS', String(slot)]);
      await cluster.settle();
    }
    expect(await redis.get(key)).toBe('before');
  });
});

describe('WATCH meeting ASK', () => {
  it('fails with an ASK error saying the slot is migrating, and watches nothing', async () => {
    const redis = client();
    const [source, target] = cluster.primaries as [
      (typeof cluster.primaries)[0],
      (typeof cluster.primaries)[0],
    ];
    const { tag, slot } = tagOn(cluster, source, 'watchask');
    const key = `${tag}:absent`;
    const migration = await cluster.beginMigration(slot, target!);
    try {
      await resetStats(cluster);
      const error = await outcome(redis.watch(key));
      expect(error).toBeInstanceOf(RespireServerError);
      expect((error as RespireServerError).code).toBe('ASK');
      expect((error as RespireServerError).message).toMatch(/WATCH .*slot \d+ is migrating/);
      expect((await commandCalls(cluster, target!)).watch ?? 0).toBe(0);
    } finally {
      await cluster.finishMigration(migration);
    }
    // Once the migration ended, WATCH follows the MOVED to the new owner.
    const session = await redis.watch(key);
    const tx = session.multi();
    tx.set(key, 'after');
    expect(await tx.exec()).toEqual(['OK']);
    expect(await cluster.command(target!, ['GET', key])).toBe('after');
  });
});
