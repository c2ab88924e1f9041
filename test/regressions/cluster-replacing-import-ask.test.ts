// Regression (issue 13, Cluster): a replacing importHash of a hash whose slot is migrating, the old
// hash still on the source. The temporary key is new, so the source answers the first transaction
// ASK and the chunks go to the target (ASKING before every MULTI); the last transaction's RENAME
// over the key then meets TRYAGAIN there (a multi-key command while the key is still on the source),
// and EXECABORT ran nothing of it. The import failed with that EXECABORT after every chunk had been
// written, though the same transaction succeeds once the migration has moved the key: a TRYAGAIN is
// followed like the router follows it for any transaction, the same transaction again on the same
// connection after its backoff.
// Also: a replacing import that failed after following an ASK deleted its temporary key without
// ASKING, which the importing node answered MOVED: the chunks stayed there until the key expired
// (an hour). The DEL now gets ASKING too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { tagOn } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();
let redis: RespireClient;

beforeAll(async () => {
  redis = await RespireClient.connect({ endpoints: [cluster.endpoints[0]!], useCluster: true });
});
afterAll(async () => {
  await redis.close();
});

function* pairs(count: number): Generator<[string, string]> {
  for (let i = 0; i < count; i++) yield [`f${i}`, `v${i}`];
}

/** How many TRYAGAIN error replies `node` has sent (INFO errorstats). */
async function tryAgains(node: ClusterNode): Promise<number> {
  const info = String(await cluster.command(node, ['INFO', 'errorstats']));
  return Number(/errorstat_TRYAGAIN:count=(\d+)/.exec(info)?.[1] ?? 0);
}

describe('Cluster: a replacing import during a slot migration', () => {
  it('waits out the TRYAGAIN of its RENAME while the old hash is still on the source', async () => {
    const [source, target] = cluster.primaries;
    const { tag, slot } = tagOn(cluster, source!, 'replace-ask');
    await cluster.command(source!, ['HSET', `${tag}:h`, 'old', '1']);
    await redis.get(`${tag}:warm`); // the client knows the slot's owner
    const before = await tryAgains(target!);
    const migration = await cluster.beginMigration(slot, target!);
    try {
      const run = redis
        .importHash(`${tag}:h`, pairs(5), { chunkFields: 2, replace: true })
        .run()
        .then(
          (result) => result,
          (error: unknown) => error,
        );
      // The RENAME met TRYAGAIN on the target: now the migration moves the old hash over.
      await waitUntil(
        'the RENAME met TRYAGAIN',
        async () => (await tryAgains(target!)) > before || 'not yet',
        {
          timeoutMs: 10_000,
          intervalMs: 5,
        },
      );
      await cluster.moveKeys(migration);
      expect(await run).toEqual({ fields: 5, transactions: 3 });
    } finally {
      await cluster.finishMigration(migration);
    }
    expect(await redis.hgetall(`${tag}:h`)).toEqual({ f0: 'v0', f1: 'v1', f2: 'v2', f3: 'v3', f4: 'v4' });
  });

  it('deletes the temporary key it wrote on the importing node when it fails', async () => {
    const [source, target] = cluster.primaries;
    const { tag, slot } = tagOn(cluster, source!, 'replace-ask-fail');
    await redis.get(`${tag}:warm`);
    const migration = await cluster.beginMigration(slot, target!);
    let written: unknown[] = [];
    try {
      const entries = async function* () {
        yield ['f0', 'v0'] as [string, string];
        yield ['f1', 'v1'] as [string, string];
        // Read one chunk ahead: the first chunk is on the target, under the temporary key.
        written = (await cluster.command(target!, ['KEYS', `${tag}*respire-import*`])) as unknown[];
        throw new Error('the source broke');
      };
      const job = redis.importHash(`${tag}:h`, entries(), { chunkFields: 1, replace: true });
      await expect(job.run()).rejects.toThrow(/reading the entries failed/);
      expect(written).toHaveLength(1);
      await waitUntil(
        'the temporary key deleted',
        async () =>
          ((await cluster.command(target!, ['KEYS', `${tag}*respire-import*`])) as unknown[]).length === 0 ||
          'not yet',
        { timeoutMs: 5000, intervalMs: 5 },
      );
    } finally {
      await cluster.finishMigration(migration);
    }
  });
});
