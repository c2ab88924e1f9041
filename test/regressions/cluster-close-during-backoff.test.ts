// Cluster mode (issue 11): a command waiting out a TRYAGAIN/CLUSTERDOWN backoff sits in an unref'd
// timer, in no node's queue. close() resolved while such a command was still pending (a script
// awaiting it after close could end with it never settled, the timer keeping nothing alive), and
// destroy() left it pending until the timer fired. Both now fail it at once, written: false.
// The same held for a transaction answered TRYAGAIN (a multi-key command of it meeting keys a
// migration split), resent whole after a backoff that was a timer of its own, outside the router:
// it now waits in the router's backoff with the commands.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

type Sent = 'command' | 'transaction';

/**
 * An MGET (alone, or in a MULTI/EXEC) that meets TRYAGAIN over and over (its keys split by a
 * migration), once it has met it 5 times.
 */
async function mgetInBackoff(client: RespireClient, salt: string, sent: Sent) {
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
  let reply: Promise<unknown>;
  if (sent === 'command') reply = client.send(['MGET', ...keys]);
  else {
    const tx = client.multi();
    tx.send(['MGET', ...keys]);
    reply = tx.exec();
  }
  reply.then(
    (value) => Object.assign(state, { settled: true, outcome: value }),
    (error) => Object.assign(state, { settled: true, outcome: error }),
  );
  // From the 5th TRYAGAIN on, the backoff is 80-160 ms: the command is waiting in it. A
  // transaction's TRYAGAIN is its EXEC's failure (EXECABORT), a command's its rejection.
  const counted =
    sent === 'command'
      ? /cmdstat_mget:calls=\d+,.*rejected_calls=(\d+)/
      : /cmdstat_exec:calls=\d+,.*failed_calls=(\d+)/;
  await expect
    .poll(
      async () =>
        Number(counted.exec(String(await cluster.command(source, ['INFO', 'commandstats'])))?.[1] ?? 0),
      { interval: 20 },
    )
    .toBeGreaterThanOrEqual(5);
  return state;
}

describe.each(['command', 'transaction'] as const)('a %s waiting out a redirect backoff', (sent) => {
  it('keeps close() from resolving until it has failed', async () => {
    const client = await open();
    const state = await mgetInBackoff(client, `close-backoff-${sent}`, sent);
    await client.close();
    expect(state.settled).toBe(true);
    expect(state.outcome).toBeInstanceOf(RespireConnectionError);
    expect((state.outcome as RespireConnectionError).written).toBe(false);
  });

  it('fails at once on destroy()', async () => {
    const client = await open();
    const state = await mgetInBackoff(client, `destroy-backoff-${sent}`, sent);
    client.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.settled).toBe(true);
    expect(state.outcome).toBeInstanceOf(RespireConnectionError);
  });
});
