// The Redis Cluster kit: start and agreement, slot lookups, live migration, failover, SIGKILL and
// restart, checked through the nodes' own answers. One shared cluster; the tests run in order.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminCommand, fieldsOf, infoFields, type Reply, ReplyError } from './admin-command.js';
import { parseClusterNodes } from './cluster-view.js';
import { isProcessAlive } from './process-alive.js';
import type { ClusterNode, RedisCluster } from './redis-cluster.js';
import { startRedisCluster } from './redis-cluster.js';
import { useRedisCluster } from './vitest-redis.js';

const cluster = useRedisCluster();

async function replyError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ReplyError);
  return (error as ReplyError).message;
}

/** Who owns `slot` according to `node` itself. */
async function ownerSeenBy(node: ClusterNode, slot: number): Promise<string | undefined> {
  const view = parseClusterNodes(String(await cluster.command(node, ['CLUSTER', 'NODES'])));
  return view.find(
    (entry) => entry.role === 'primary' && entry.slots.some(([a, b]) => slot >= a && slot <= b),
  )?.id;
}

describe('startRedisCluster', () => {
  it('starts three primaries with a replica each, covering every slot once, agreed by every node', async () => {
    const { nodes, primaries } = cluster;
    expect(nodes).toHaveLength(6);
    expect(new Set(nodes.map((node) => node.port)).size).toBe(6);
    expect(primaries).toHaveLength(3);
    const covered = new Uint8Array(16384);
    for (const primary of primaries) {
      for (const [first, last] of primary.slots)
        for (let slot = first; slot <= last; slot++) covered[slot]!++;
      expect(cluster.replicasOf(primary)).toHaveLength(1);
    }
    expect(covered.every((count) => count === 1)).toBe(true);
    for (const node of nodes) {
      const info = await infoFields(node, ['CLUSTER', 'INFO']);
      expect(info.cluster_state).toBe('ok');
      expect(info.cluster_slots_ok).toBe('16384');
      expect(info.cluster_known_nodes).toBe('6');
      const shards = (await cluster.command(node, ['CLUSTER', 'SHARDS'])) as Reply[];
      expect(shards).toHaveLength(3);
      for (const shard of shards) {
        for (const member of fieldsOf(shard).nodes as Reply[]) expect(fieldsOf(member).health).toBe('online');
      }
      if (node.role === 'replica') {
        const replication = await infoFields(node, ['INFO', 'replication']);
        expect(replication.master_link_status).toBe('up');
        expect(Number(replication.master_port)).toBe(cluster.node({ id: node.primaryId! }).port);
      }
    }
  });

  it('finds the owner of a key as CLUSTER KEYSLOT does, and that owner serves it', async () => {
    const keys = ['user:1', '{user}:2', 'a{}b', Buffer.from([0xff, 0x00, 0x7b, 0x7d]), 'ключ'];
    for (const key of keys) {
      const slot = await cluster.keySlot(key);
      expect(await adminCommand(cluster.primaries[2]!, ['CLUSTER', 'KEYSLOT', key])).toBe(slot);
      const owner = await cluster.nodeFor(key);
      expect(owner.slots.some(([first, last]) => slot >= first && slot <= last)).toBe(true);
      expect(await cluster.command(owner, ['SET', key, 'v'])).toBe('OK');
      const other = cluster.primaries.find((node) => node.id !== owner.id)!;
      expect(await replyError(cluster.command(other, ['GET', key]))).toBe(
        `MOVED ${slot} 127.0.0.1:${owner.port}`,
      );
    }
  });

  it('migrates a slot with its keys, with an ASK window between the steps', async () => {
    const keys = ['{mig}1', '{mig}2', '{mig}3', '{mig}4', '{mig}5'];
    const slot = await cluster.keySlot(keys[0]!);
    const source = cluster.ownerOf(slot);
    const target = cluster.primaries.find((node) => node.id !== source.id)!;
    for (const key of keys) await cluster.command(source, ['SET', key, key]);

    const migration = await cluster.beginMigration(slot, target);
    expect(migration).toMatchObject({ slot, source: { id: source.id }, target: { id: target.id } });
    expect(await cluster.moveKeys(migration, 2)).toBe(2);
    const moved = (await cluster.command(target, ['CLUSTER', 'GETKEYSINSLOT', slot, 10])) as string[];
    expect(moved).toHaveLength(2);
    // Mid-migration: the source sends moved keys on with ASK and still serves the others.
    expect(await replyError(cluster.command(source, ['GET', moved[0]!]))).toBe(
      `ASK ${slot} 127.0.0.1:${target.port}`,
    );
    expect(await cluster.command(source, ['CLUSTER', 'COUNTKEYSINSLOT', slot])).toBe(3);

    await cluster.finishMigration(migration);
    expect(cluster.ownerOf(slot).id).toBe(target.id);
    for (const node of cluster.nodes) expect(await ownerSeenBy(node, slot)).toBe(target.id);
    expect(await cluster.command(source, ['CLUSTER', 'COUNTKEYSINSLOT', slot])).toBe(0);
    for (const key of keys) expect(await cluster.command(target, ['GET', key])).toBe(key);

    await cluster.migrateSlot(slot, source);
    expect(cluster.ownerOf(slot).id).toBe(source.id);
    expect(await cluster.command(source, ['CLUSTER', 'COUNTKEYSINSLOT', slot])).toBe(5);
  });

  it('fails a primary over to its replica, which then owns its slots', async () => {
    const primary = cluster.primaries[0]!;
    const replica = cluster.replicasOf(primary)[0]!;
    const promoted = await cluster.failover(primary);
    expect(promoted.id).toBe(replica.id);
    expect(promoted).toMatchObject({ role: 'primary', slots: primary.slots });
    expect(cluster.node(primary)).toMatchObject({ role: 'replica', primaryId: replica.id, slots: [] });
    expect(((await cluster.command(promoted, ['ROLE'])) as Reply[])[0]).toBe('master');
    expect(((await cluster.command(primary, ['ROLE'])) as Reply[])[0]).toBe('slave');
    for (const node of cluster.nodes) expect(await ownerSeenBy(node, primary.slots[0]![0])).toBe(promoted.id);
  });

  it('SIGKILLs a primary until the cluster promotes its replica, then restarts it as a replica', async () => {
    const primary = cluster.primaries[1]!;
    const replica = cluster.replicasOf(primary)[0]!;
    const pid = cluster.server(primary).pid;
    const promoted = await cluster.killPrimary(primary);
    expect(isProcessAlive(pid)).toBe(false);
    expect(promoted).toMatchObject({ id: replica.id, role: 'primary', slots: primary.slots });
    expect(cluster.node(primary).running).toBe(false);
    expect(cluster.endpoints).toHaveLength(5);
    for (const node of cluster.nodes.filter((candidate) => candidate.running)) {
      expect((await infoFields(node, ['CLUSTER', 'INFO'])).cluster_state).toBe('ok');
    }

    await cluster.restartNode(primary);
    expect(cluster.node(primary)).toMatchObject({ running: true, role: 'replica', primaryId: replica.id });
    expect((await infoFields(primary, ['INFO', 'replication'])).master_link_status).toBe('up');
    expect(cluster.endpoints).toHaveLength(6);
  });
});

describe('startRedisCluster options', () => {
  it('applies a password and append-only files, and stop ends every process and removes its dir', async () => {
    let small: RedisCluster | undefined = await startRedisCluster({
      primaries: 1,
      replicasPerPrimary: 1,
      password: 'kit-secret',
      appendOnly: true,
      appendFsync: 'always',
    });
    try {
      const [primary, replica] = small.nodes;
      expect(primary!.slots).toEqual([[0, 16383]]);
      expect(replica).toMatchObject({ role: 'replica', primaryId: primary!.id });
      expect(await replyError(adminCommand(primary!, ['PING']))).toMatch(/^NOAUTH/);
      const config = fieldsOf(await small.command(primary!, ['CONFIG', 'GET', 'appendonly', 'appendfsync']));
      expect(config).toEqual({ appendonly: 'yes', appendfsync: 'always' });
      const servers = small.nodes.map((node) => small!.server(node));
      await small.stop();
      small = undefined;
      for (const server of servers) {
        expect(isProcessAlive(server.pid)).toBe(false);
        expect(existsSync(server.dir)).toBe(false);
      }
    } finally {
      await small?.stop();
    }
  });
});
