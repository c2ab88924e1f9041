// Seams of Cluster mode with the rest of the client, against a real cluster (issue 11 "Routing",
// "Circuits"): a key-prefix view (the prefix is part of the key, so a prefix with a hash tag puts
// every key of the view in one slot); a split MGET that meets MOVED on one part and a circuit
// rejection on another; and a batch across slots with an entry whose signal aborted.
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { RespireCircuitOpenError, type RespireServerError } from '../../src/index.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { commandCalls, outcome, resetStats, tagOn, useProxiedClients } from './cluster-support.js';

const cluster = useRedisCluster();
const BREAKER = { minimumFailureCount: 3, failureRateThreshold: 0.5, openDuration: 60_000 };
const kit = useProxiedClients(cluster, { commandTimeout: 300 });

/** MGETs a node refused (MOVED, ASK, CROSSSLOT…): INFO commandstats `rejected_calls`. */
async function rejectedMgets(node: ClusterNode): Promise<number> {
  const text = String(await cluster.command(node, ['INFO', 'commandstats']));
  return Number(/^cmdstat_mget:.*rejected_calls=(\d+)/m.exec(text)?.[1] ?? 0);
}

/** A key of its own slot on `node`. */
function keyOn(node: ClusterNode, salt: string): string {
  return `${tagOn(cluster, node, salt).tag}:k`;
}

describe('a key-prefix view', () => {
  it('routes by the prefixed key: each key on the owner of its prefixed slot, split MSET included', async () => {
    const redis = await kit.open();
    const app = redis.withKeyPrefix('app:');
    const names = Array.from({ length: 12 }, (_, i) => `user:${i}`);
    await app.send(['MSET', ...names.flatMap((name) => [name, `v-${name}`])]);
    for (const name of names) {
      const owner = cluster.ownerOf(keySlot(`app:${name}`));
      expect(await cluster.command(owner, ['GET', `app:${name}`])).toBe(`v-${name}`);
    }
    expect(await app.send(['MGET', ...names])).toEqual(names.map((name) => `v-${name}`));
    // Unprefixed names of other slots: a multi-key command across them is CROSSSLOT, sent nowhere.
    const crossSlot = await outcome(app.send(['RENAME', 'user:0', 'user:1']));
    expect((crossSlot as RespireServerError).code).toBe('CROSSSLOT');
  });

  it('with a hash tag in the prefix puts every key in the prefix’s slot, overriding the keys’ own tags', async () => {
    const redis = await kit.open();
    const tenant = redis.withKeyPrefix('{tenant7}:');
    const slot = keySlot('{tenant7}');
    const owner = cluster.ownerOf(slot);
    expect(keySlot('{a}x')).not.toBe(keySlot('{b}x'));
    await tenant.set('{a}x', '1');
    await tenant.set('{b}x', '2');
    // Different tags unprefixed, one slot prefixed: RENAME is not CROSSSLOT.
    expect(await tenant.send(['RENAME', '{a}x', '{b}x'])).toBe('OK');
    expect(await cluster.command(owner, ['GET', '{tenant7}:{b}x'])).toBe('1');
    await resetStats(cluster);
    expect(await tenant.send(['MGET', '{a}x', '{b}x'])).toEqual([null, '1']);
    expect((await commandCalls(cluster, owner)).mget).toBe(1);
  });
});

describe('a split MGET', () => {
  it('follows MOVED on one part while another is rejected by its circuit; the rejection is the answer', async () => {
    const redis = await kit.open({ circuitBreaker: BREAKER });
    const [sick, source, target] = cluster.primaries as [ClusterNode, ClusterNode, ClusterNode];
    const sickKey = keyOn(sick, 'mgetsick');
    const { tag, slot } = tagOn(cluster, source, 'mgetmoved');
    const movedKey = `${tag}:k`;
    const plainKey = keyOn(target, 'mgetplain');
    await redis.send(['MSET', sickKey, 's', movedKey, 'm', plainKey, 'p']);
    // Open the sick node's circuit: three reads black-holed, then it heals.
    const proxy = kit.proxied.proxyOf(sick);
    await proxy.setMode('blackhole');
    await Promise.all([1, 2, 3].map((i) => outcome(redis.get(`${keyOn(sick, 'mgetsick')}${i}`))));
    await proxy.setMode('pass');
    expect(redis.circuitOf(kit.proxied.dialled(sick))?.state).toBe('open');
    // The moved key's slot changes owner behind the client's back: its part meets MOVED.
    await cluster.migrateSlot(slot, target);
    await resetStats(cluster);
    const error = await outcome(redis.send(['MGET', movedKey, sickKey, plainKey]));
    expect(error).toBeInstanceOf(RespireCircuitOpenError);
    expect((error as RespireCircuitOpenError).endpoint).toEqual(kit.proxied.dialled(sick));
    expect(await rejectedMgets(source)).toBe(1); // answered MOVED
    expect((await commandCalls(cluster, target)).mget).toBe(2); // the moved part and the plain one
    expect((await commandCalls(cluster, sick)).mget).toBeUndefined();
    // The MOVED patched the map: the moved key now goes straight to its new owner.
    await resetStats(cluster);
    expect(await redis.get(movedKey)).toBe('m');
    expect((await commandCalls(cluster, source)).get).toBeUndefined();
  });
});

describe('a batch across slots', () => {
  it('drops an entry whose signal aborted; the other slots’ entries run, in queue order', async () => {
    const redis = await kit.open();
    const [a, b, c] = cluster.primaries as [ClusterNode, ClusterNode, ClusterNode];
    const keys = [keyOn(a, 'batcha'), keyOn(b, 'batchb'), keyOn(c, 'batchc')];
    const controller = new AbortController();
    const batch = redis.batch();
    const first = batch.set(keys[0]!, '1');
    const aborted = batch.set(keys[1]!, '2', { signal: controller.signal });
    const third = batch.set(keys[2]!, '3');
    const read = batch.send(['MGET', ...keys]);
    controller.abort(new Error('caller gave up'));
    const failures = await batch.tryExecute();
    expect(failures.map((failure) => failure.index)).toEqual([1]);
    expect((failures[0]!.error as Error).message).toBe('caller gave up');
    await expect(aborted).rejects.toThrow('caller gave up');
    expect(await first).toBe('OK');
    expect(await third).toBe('OK');
    expect(await read).toEqual(['1', null, '3']);
    expect(await cluster.command(b, ['EXISTS', keys[1]!])).toBe(0);
  });
});
