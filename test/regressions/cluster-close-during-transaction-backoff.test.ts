// Cluster mode (issue 11): a transaction answered TRYAGAIN (a multi-key command of it meeting a
// slot whose keys a migration split) is resent whole after a backoff, like a single command. That
// backoff was a timer of the transaction's own, outside the router: close() resolved while the
// transaction still waited in it (its exec() settling only later, or never if nothing kept the
// process alive), and destroy() left it pending. Now the router holds it with its other backoffs:
// close() and destroy() fail it at once, written: false, as they do a single command
// (cluster-close-during-backoff.test.ts).
import { afterEach, expect, it } from 'vitest';
import { RespireClient, RespireConnectionError } from '../../src/index.js';
import { resetStats, tagOn } from '../cluster/cluster-support.js';
import type { SlotMigration } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const migrations: SlotMigration[] = [];

afterEach(async () => {
  for (const migration of migrations.splice(0)) await cluster.finishMigration(migration);
});

async function open(): Promise<RespireClient> {
  return RespireClient.connect({
    endpoints: [cluster.endpoints[0]!],
    useCluster: true,
    cluster: { refreshInterval: 0, maxRedirections: 1000 },
  });
}

/** A MULTI/MGET/EXEC whose MGET meets TRYAGAIN over and over, once it has met it 5 times. */
async function transactionInBackoff(client: RespireClient, salt: string) {
  const source = cluster.primaries[0]!;
  const target = cluster.primaries[1]!;
  const { tag, slot } = tagOn(cluster, source, salt);
  const keys = [`${tag}:0`, `${tag}:1`, `${tag}:2`, `${tag}:3`];
  await Promise.all(keys.map((key) => client.set(key, 'v')));
  const migration = await cluster.beginMigration(slot, target);
  migrations.push(migration);
  await cluster.moveKeys(migration, 2);
  await resetStats(cluster);
  const state = { settled: false, outcome: undefined as unknown };
  const tx = client.multi();
  tx.send(['MGET', ...keys]);
  tx.exec().then(
    (value) => Object.assign(state, { settled: true, outcome: value }),
    (error) => Object.assign(state, { settled: true, outcome: error }),
  );
  // From the 5th TRYAGAIN on, the backoff is 80-160 ms: the transaction is waiting in it.
  await expect
    .poll(
      async () =>
        Number(
          /cmdstat_exec:calls=\d+,.*failed_calls=(\d+)/.exec(
            String(await cluster.command(source, ['INFO', 'commandstats'])),
          )?.[1] ?? 0,
        ),
      { interval: 20 },
    )
    .toBeGreaterThanOrEqual(5);
  return state;
}

it('close() does not resolve while a transaction waits out a TRYAGAIN backoff', async () => {
  const client = await open();
  const state = await transactionInBackoff(client, 'close-tx-backoff');
  await client.close();
  expect(state.settled).toBe(true);
  expect(state.outcome).toBeInstanceOf(RespireConnectionError);
  expect((state.outcome as RespireConnectionError).written).toBe(false);
});

it('destroy() fails a transaction waiting out a TRYAGAIN backoff at once', async () => {
  const client = await open();
  const state = await transactionInBackoff(client, 'destroy-tx-backoff');
  client.destroy();
  await new Promise((resolve) => setImmediate(resolve));
  expect(state.settled).toBe(true);
  expect(state.outcome).toBeInstanceOf(RespireConnectionError);
});
