// Cluster mode (issue 11): a command waiting out a TRYAGAIN/CLUSTERDOWN backoff sits in an unref'd
// timer, in no node's queue. close() resolved while such a command was still pending (a script
// awaiting it after close could end with it never settled, the timer keeping nothing alive), and
// destroy() left it pending until the timer fired. Both now fail it at once, written: false.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { RespireClient, RespireConnectionError } from '../../src/index.js';
import { resetStats, tagOn } from '../cluster/cluster-support.js';
import type { SlotMigration } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
let redis: RespireClient;
const migrations: SlotMigration[] = [];

async function open(): Promise<RespireClient> {
  return RespireClient.connect({
    endpoints: [cluster.endpoints[0]!],
    useCluster: true,
    cluster: { refreshInterval: 0, maxRedirections: 1000 },
  });
}

beforeAll(async () => {
  redis = await open();
});
afterEach(async () => {
  for (const migration of migrations.splice(0)) await cluster.finishMigration(migration);
});
afterAll(async () => {
  await redis?.close();
});

/** An MGET that meets TRYAGAIN over and over (its keys split by a migration), once it has met it 5 times. */
async function mgetInBackoff(client: RespireClient, salt: string) {
  const source = cluster.primaries[0]!;
  const target = cluster.primaries[1]!;
  const { tag, slot } = tagOn(cluster, source, salt);
  const keys = [`${tag}:0`, `${tag}:1`, `${tag}:2`, `${tag}:3`];
  await Promise.all(keys.map((key) => redis.set(key, 'v')));
  const migration = await cluster.beginMigration(slot, target);
  migrations.push(migration);
  await cluster.moveKeys(migration, 2);
  await resetStats(cluster);
  const state = { settled: false, outcome: undefined as unknown };
  client.send(['MGET', ...keys]).then(
    (value) => Object.assign(state, { settled: true, outcome: value }),
    (error) => Object.assign(state, { settled: true, outcome: error }),
  );
  // From the 5th TRYAGAIN on, the backoff is 80-160 ms: the command is waiting in it.
  await expect
    .poll(
      async () =>
        Number(
          /cmdstat_mget:calls=\d+,.*rejected_calls=(\d+)/.exec(
            String(await cluster.command(source, ['INFO', 'commandstats'])),
          )?.[1] ?? 0,
        ),
      { interval: 20 },
    )
    .toBeGreaterThanOrEqual(5);
  return state;
}

it('close() does not resolve while a command waits out a redirect backoff', async () => {
  const client = await open();
  const state = await mgetInBackoff(client, 'close-backoff');
  await client.close();
  expect(state.settled).toBe(true);
  expect(state.outcome).toBeInstanceOf(RespireConnectionError);
  expect((state.outcome as RespireConnectionError).written).toBe(false);
});

it('destroy() fails a command waiting out a redirect backoff at once', async () => {
  const client = await open();
  const state = await mgetInBackoff(client, 'destroy-backoff');
  client.destroy();
  await new Promise((resolve) => setImmediate(resolve));
  expect(state.settled).toBe(true);
  expect(state.outcome).toBeInstanceOf(RespireConnectionError);
});
