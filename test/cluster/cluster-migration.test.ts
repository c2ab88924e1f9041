// Redirects during a live slot migration against a real cluster (issue 11 "Routing", PROTOCOL.md
// §2.3): ASK answered with ASKING and the command on the target's connection, MOVED patching the
// slot map so the next command goes straight to the new owner, TRYAGAIN retried until the
// migration ends, the maxRedirections bound, and a transaction that meets ASK resent to the target.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, type RespireOptions, RespireServerError } from '../../src/index.js';
import type { ClusterNode, NodeRef, SlotMigration } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { commandCalls, outcome, resetStats, tagOn } from './cluster-support.js';

const cluster = useRedisCluster();

let redis: RespireClient;
const clients: RespireClient[] = [];

async function open(options: Partial<RespireOptions> = {}): Promise<RespireClient> {
  const client = await RespireClient.connect({
    endpoints: [cluster.endpoints[0]!],
    useCluster: true,
    // No periodic refresh: only redirects move the client's map in these tests.
    cluster: { refreshInterval: 0, ...options.cluster },
    ...options,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  redis = await open();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

/** Migrations begun and not finished: a failed test must not leave the cluster disagreeing. */
const unfinished = new Set<SlotMigration>();
afterEach(async () => {
  for (const migration of unfinished) await finish(migration);
  unfinished.clear();
});

async function begin(slot: number, target: NodeRef): Promise<SlotMigration> {
  const migration = await cluster.beginMigration(slot, target);
  unfinished.add(migration);
  return migration;
}

async function finish(migration: SlotMigration): Promise<void> {
  unfinished.delete(migration);
  await cluster.finishMigration(migration);
}

/** A slot on the first primary with `count` keys written through the client, and a target primary. */
async function slotWithKeys(salt: string, count: number) {
  const source = cluster.primaries[0]!;
  const target = cluster.primaries.find((node) => node.id !== source.id)!;
  const { tag, slot } = tagOn(cluster, source, salt);
  const keys = Array.from({ length: count }, (_, i) => `${tag}:${i}`);
  await Promise.all(keys.map((key, i) => redis.set(key, `v${i}`)));
  return { source, target, slot, keys };
}

/** The keys of `slot` that `node` holds now (an importing node answers MOVED to EXISTS). */
async function keysOn(node: ClusterNode, slot: number): Promise<string[]> {
  return (await cluster.command(node, ['CLUSTER', 'GETKEYSINSLOT', slot, 1000])) as string[];
}

describe('a live migration', () => {
  it('reads moved keys through ASK (ASKING then the command on the target), the others on the source', async () => {
    const { source, target, slot, keys } = await slotWithKeys('ask', 10);
    const migration = await begin(slot, target);
    expect(await cluster.moveKeys(migration, 4)).toBe(4);
    const moved = await keysOn(target, slot);
    expect(moved).toHaveLength(4);
    await resetStats(cluster);
    expect(await Promise.all(keys.map((key) => redis.get(key)))).toEqual(keys.map((_, i) => `v${i}`));
    const onTarget = await commandCalls(cluster, target);
    expect(onTarget.get).toBe(4);
    expect(onTarget.asking).toBe(4);
    expect((await commandCalls(cluster, source)).get).toBe(6);

    // A new key of the migrating slot is created on the target (the source says ASK for it).
    expect(await redis.set(`${keys[0]!.split(':')[0]}:new`, 'fresh')).toBe('OK');
    expect(await keysOn(target, slot)).toContain(`${keys[0]!.split(':')[0]}:new`);
    // An ASK changes no map: the next read of a key still on the source is served there.
    const stay = keys.find((key) => !moved.includes(key))!;
    await resetStats(cluster);
    expect(await redis.get(stay)).toBe(`v${keys.indexOf(stay)}`);
    expect((await commandCalls(cluster, source)).get).toBe(1);
    await finish(migration);
  });

  it('follows MOVED once and sends the next command straight to the new owner', async () => {
    const { source, target, slot, keys } = await slotWithKeys('moved', 3);
    await cluster.migrateSlot(slot, target);
    await resetStats(cluster);
    expect(await redis.get(keys[0]!)).toBe('v0');
    expect(await redis.get(keys[1]!)).toBe('v1');
    expect(await redis.get(keys[2]!)).toBe('v2');
    expect((await commandCalls(cluster, target)).get).toBe(3);
    // Only the first GET went to the old owner (rejected with MOVED, so no call counted there).
    const info = String(await cluster.command(source, ['INFO', 'commandstats']));
    expect(info).toMatch(/cmdstat_get:calls=0,.*rejected_calls=1/);
  });

  it('retries a multi-key command that meets TRYAGAIN until the migration ends', async () => {
    const { target, slot, keys } = await slotWithKeys('tryagain', 4);
    const patient = await open({ cluster: { refreshInterval: 0, maxRedirections: 100 } });
    const migration = await begin(slot, target);
    await cluster.moveKeys(migration, 2);
    await resetStats(cluster);
    const reply = patient.send(['MGET', ...keys]);
    // The source answers TRYAGAIN (some keys moved, some not) until every key has moved.
    await expect
      .poll(
        async () =>
          String(await cluster.command(migration.source, ['INFO', 'commandstats'])).match(
            /cmdstat_mget:calls=\d+,.*rejected_calls=(\d+)/,
          )?.[1],
      )
      .toMatch(/^[1-9]/);
    await finish(migration);
    expect(await reply).toEqual(['v0', 'v1', 'v2', 'v3']);
  });

  it('gives the caller the MOVED or ASK error past maxRedirections', async () => {
    const { target, slot, keys } = await slotWithKeys('bound', 2);
    const none = await open({ cluster: { refreshInterval: 0, maxRedirections: 0 } });
    const one = await open({ cluster: { refreshInterval: 0, maxRedirections: 1 } });
    const migration = await begin(slot, target);
    await cluster.moveKeys(migration);
    const ask = await outcome(none.get(keys[0]!));
    expect(ask).toBeInstanceOf(RespireServerError);
    expect((ask as RespireServerError).code).toBe('ASK');
    const tx = none.multi();
    tx.get(keys[0]!);
    const aborted = await outcome(tx.exec());
    expect((aborted as RespireServerError).code).toBe('EXECABORT');
    expect(((aborted as Error).cause as RespireServerError).code).toBe('ASK');
    expect(await one.get(keys[0]!)).toBe('v0');
    await finish(migration);
    const moved = await outcome(none.get(keys[1]!));
    expect((moved as RespireServerError).code).toBe('MOVED');
    expect(await one.get(keys[1]!)).toBe('v1');
  });

  it('resends a transaction that meets ASK to the target, with ASKING before MULTI', async () => {
    const { target, slot, keys } = await slotWithKeys('txask', 2);
    const migration = await begin(slot, target);
    await cluster.moveKeys(migration);
    await resetStats(cluster);
    // Every key of the transaction has moved: with some still on the source the target would
    // answer EXEC with TRYAGAIN (the whole transaction is one multi-key request).
    const tx = redis.multi();
    tx.set(keys[1]!, 'x');
    tx.get(keys[0]!);
    expect(await tx.exec()).toEqual(['OK', 'v0']);
    const onTarget = await commandCalls(cluster, target);
    expect(onTarget.exec).toBe(1);
    expect(onTarget.asking).toBe(1);
    await finish(migration);
  });

  it('resends a transaction that meets MOVED to the new owner', async () => {
    const { target, slot, keys } = await slotWithKeys('txmoved', 1);
    const stale = await open();
    await stale.get(keys[0]!);
    await cluster.migrateSlot(slot, target);
    const tx = stale.multi();
    tx.get(keys[0]!);
    tx.set(keys[0]!, 'after');
    expect(await tx.exec()).toEqual(['v0', 'OK']);
    expect(await cluster.command(target, ['GET', keys[0]!])).toBe('after');
  });

  it('retries a transaction that meets TRYAGAIN (keys split by the migration) until it ends', async () => {
    const { target, slot, keys } = await slotWithKeys('txtry', 4);
    const patient = await open({ cluster: { refreshInterval: 0, maxRedirections: 100 } });
    const migration = await begin(slot, target);
    await cluster.moveKeys(migration, 2);
    await resetStats(cluster);
    const tx = patient.multi();
    for (const key of keys) tx.get(key);
    const reply = tx.exec();
    await expect
      .poll(async () => {
        const stats = (await commandCalls(cluster, migration.source)).exec ?? 0;
        return stats + ((await commandCalls(cluster, target)).exec ?? 0);
      })
      .toBeGreaterThan(0);
    await finish(migration);
    expect(await reply).toEqual(['v0', 'v1', 'v2', 'v3']);
  });

  it('follows MOVED for a fire-and-forget write, which would otherwise be lost', async () => {
    const { target, slot, keys } = await slotWithKeys('ffmoved', 1);
    const stale = await open();
    await stale.get(keys[0]!);
    await cluster.migrateSlot(slot, target);
    expect(await stale.send(['SET', keys[0]!, 'fired'], { fireAndForget: true })).toBeUndefined();
    await expect.poll(() => cluster.command(target, ['GET', keys[0]!])).toBe('fired');
  });

  it('opens a WATCH session on the new owner when WATCH meets MOVED', async () => {
    const { target, slot, keys } = await slotWithKeys('watchmoved', 1);
    const stale = await open();
    await stale.get(keys[0]!);
    await cluster.migrateSlot(slot, target);
    const session = await stale.watch([keys[0]!]);
    const tx = session.multi();
    tx.set(keys[0]!, 'watched');
    expect(await tx.exec()).toEqual(['OK']);
    expect(await cluster.command(target, ['GET', keys[0]!])).toBe('watched');
  });

  it('sends ASKING on the connection a blocking command runs on', async () => {
    const { target, slot, keys } = await slotWithKeys('blocking', 1);
    const list = keys[0]!.replace(/:0$/, ':list');
    await redis.send(['RPUSH', list, 'a']);
    const migration = await begin(slot, target);
    await cluster.moveKeys(migration);
    expect(await redis.send(['BLPOP', list, '1'])).toEqual([list, 'a']);
    await finish(migration);
  });
});
