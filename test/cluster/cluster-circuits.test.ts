// A circuit per Cluster node against a real cluster, every node behind a fault proxy that the
// client reaches through `cluster.addressMap` (issue 11 "Circuits", seed 000 "Redis Cluster"): a
// black-holed primary opens only its own circuit; every send kind is checked on its node; MOVED and
// ASK check the target; background refresh is not checked; rejections never bypass readFrom; and
// replicas serve reads under readFrom, with READONLY on their connections.
import { describe, expect, it } from 'vitest';
import {
  RespireCircuitOpenError,
  type RespireClient,
  RespireConnectionError,
  RespireMetricGroups,
  RespireTimeoutError,
} from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import {
  callsByPort,
  commandCalls,
  outcome,
  resetStats,
  tagOn,
  useProxiedClients,
} from './cluster-support.js';

const cluster = useRedisCluster();
/** Trips after 3 failures; stays open for the test unless it says otherwise. */
const BREAKER = { minimumFailureCount: 3, failureRateThreshold: 0.5, openDuration: 60_000 };
const kit = useProxiedClients(cluster, { commandTimeout: 300, circuitBreaker: BREAKER });
const open = kit.open.bind(kit);

/** `count` keys of one slot `node` serves. */
function keysOn(node: ClusterNode, salt: string, count = 8): string[] {
  const { tag } = tagOn(cluster, node, salt);
  return Array.from({ length: count }, (_, i) => `${tag}:${i}`);
}

/** Opens `node`'s circuit: its proxy black-holes three reads (they time out), then heals. */
async function trip(client: RespireClient, node: ClusterNode, keys: readonly string[]): Promise<void> {
  await client.get(keys[0]!); // a connection to the node first, so that the reads reach the proxy
  const proxy = kit.proxied.proxyOf(node);
  await proxy.setMode('blackhole');
  const failures = await Promise.all(keys.slice(0, 3).map((key) => outcome(client.get(key))));
  for (const failure of failures) expect(failure).toBeInstanceOf(RespireTimeoutError);
  await proxy.setMode('pass');
  expect(client.circuitOf(kit.proxied.dialled(node))?.state).toBe('open');
}

function expectRejectedBy(error: unknown, node: ClusterNode): void {
  expect(error).toBeInstanceOf(RespireCircuitOpenError);
  expect((error as RespireCircuitOpenError).endpoint).toEqual(kit.proxied.dialled(node));
}

describe('a black-holed primary', () => {
  it('opens only its own circuit; other slots keep working; probes close it after healing', async () => {
    const redis = await open({ circuitBreaker: { ...BREAKER, openDuration: 1_000 } });
    const [sick, ...healthy] = cluster.primaries as [ClusterNode, ...ClusterNode[]];
    const sickKeys = keysOn(sick, 'sick');
    const otherKeys = healthy.flatMap((node) => keysOn(node, 'well', 3));
    // One success on the sick node, so that three failures reach the 0.5 failure rate.
    await Promise.all([...sickKeys.slice(7), ...otherKeys].map((key) => redis.set(key, 'v')));
    const proxy = kit.proxied.proxyOf(sick);
    await proxy.setMode('blackhole');
    const failures = await Promise.all(sickKeys.slice(0, 3).map((key) => outcome(redis.get(key))));
    for (const failure of failures) expect(failure).toBeInstanceOf(RespireTimeoutError);
    expect(redis.circuitOf(kit.proxied.dialled(sick))?.state).toBe('open');
    for (const node of cluster.nodes.filter((node) => node.id !== sick.id)) {
      expect(redis.circuitOf(kit.proxied.dialled(node))?.state ?? 'closed').toBe('closed');
    }
    expect(await Promise.all(otherKeys.map((key) => redis.get(key)))).toEqual(otherKeys.map(() => 'v'));
    const rejected = await outcome(redis.get(sickKeys[5]!));
    expectRejectedBy(rejected, sick);

    await proxy.setMode('pass');
    await new Promise((resolve) => setTimeout(resolve, (rejected as RespireCircuitOpenError).retryAfter!));
    await expect
      .poll(async () => {
        await outcome(redis.get(sickKeys[6]!));
        return redis.circuitOf(kit.proxied.dialled(sick))?.state;
      })
      .toBe('closed');
    expect(await redis.get(sickKeys[7]!)).toBe('v');
  });

  it('checks every send kind on its node: typed, raw, fire-and-forget, batch entries, transactions, blocking, WATCH', async () => {
    const redis = await open();
    const [sick, well] = cluster.primaries as [ClusterNode, ClusterNode];
    const sickKeys = keysOn(sick, 'kinds');
    const wellKey = keysOn(well, 'kindsok', 1)[0]!;
    await redis.set(wellKey, 'w');
    await trip(redis, sick, sickKeys);

    expectRejectedBy(await outcome(redis.get(sickKeys[3]!)), sick);
    expectRejectedBy(await outcome(redis.send(['GET', sickKeys[3]!])), sick);
    expectRejectedBy(await outcome(redis.send(['SET', sickKeys[3]!, 'x'], { fireAndForget: true })), sick);
    const batch = redis.batch();
    batch.get(wellKey);
    batch.get(sickKeys[3]!);
    const batchFailures = await batch.tryExecute();
    expect(batchFailures.map((failure) => failure.index)).toEqual([1]);
    expectRejectedBy(batchFailures[0]!.error, sick);
    const tx = redis.multi();
    tx.set(sickKeys[3]!, 'x');
    expectRejectedBy(await outcome(tx.exec()), sick);
    expectRejectedBy(await outcome(redis.blpop(sickKeys[4]!, 1)), sick);
    expectRejectedBy(await outcome(redis.watch([sickKeys[4]!])), sick);
    // Nothing reached the node.
    expect(await cluster.command(sick, ['EXISTS', sickKeys[3]!])).toBe(0);
    expect(await redis.get(wellKey)).toBe('w');
  });

  it('rejects a command to the open node in the call itself, before any microtask (issue 11 blip)', async () => {
    const meter = new RecordingMeter();
    const redis = await open({ meter, metricGroups: [RespireMetricGroups.Resiliency] });
    const [sick, well] = cluster.primaries as [ClusterNode, ClusterNode];
    const sickKeys = keysOn(sick, 'enqueue');
    const wellKey = keysOn(well, 'enqueueok', 1)[0]!;
    await redis.set(wellKey, 'w');
    // The blip: the node stays black-holed, and the client has opened a new connection to it
    // (the old one was unresponsive), whose handshake hangs in the black hole.
    await redis.get(sickKeys[0]!);
    const proxy = kit.proxied.proxyOf(sick);
    const accepted = proxy.connectionsAccepted;
    await proxy.setMode('blackhole');
    const failures = await Promise.all(sickKeys.slice(0, 3).map((key) => outcome(redis.get(key))));
    for (const failure of failures) expect(failure).toBeInstanceOf(RespireTimeoutError);
    expect(redis.circuitOf(kit.proxied.dialled(sick))?.state).toBe('open');
    await proxy.waitForConnectionsAccepted(accepted + 1);
    const rejections = () => meter.of('respire.circuit.rejections').length;
    const before = rejections();
    // The healthy node's command first: the sick node's rejection does not wait behind its flush.
    const well1 = redis.get(wellKey);
    const rejected = outcome(redis.get(sickKeys[3]!));
    expect(rejections()).toBe(before + 1);
    expectRejectedBy(await rejected, sick);
    expect(await well1).toBe('w');
    expect(rejections()).toBe(before + 1);
  });
});

describe('redirects to a node whose circuit is open', () => {
  it('MOVED: rejected naming the target, and healthy for the source', async () => {
    const redis = await open();
    const [source, target] = cluster.primaries as [ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, source, 'movedopen');
    await redis.set(`${tag}:k`, 'v');
    await trip(redis, target, keysOn(target, 'movedtrip'));
    await cluster.migrateSlot(slot, target);
    const sourceCircuit = redis.circuitOf(kit.proxied.dialled(source))!;
    const before = sourceCircuit.snapshot();
    expectRejectedBy(await outcome(redis.get(`${tag}:k`)), target);
    const after = sourceCircuit.snapshot();
    expect(after.state).toBe('closed');
    expect(after.total).toBe(before.total + 1);
    expect(after.failures).toBe(before.failures);
  });

  it('ASK: rejected naming the target before ASKING is sent', async () => {
    const redis = await open();
    const [source, target] = cluster.primaries as [ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, source, 'askopen');
    await redis.set(`${tag}:k`, 'v');
    await trip(redis, target, keysOn(target, 'asktrip'));
    const migration = await cluster.beginMigration(slot, target);
    try {
      await cluster.moveKeys(migration);
      await resetStats(cluster);
      expectRejectedBy(await outcome(redis.get(`${tag}:k`)), target);
      expect((await commandCalls(cluster, target)).asking).toBeUndefined();
      expect(redis.circuitOf(kit.proxied.dialled(source))?.snapshot().failures).toBe(0);
    } finally {
      await cluster.finishMigration(migration);
    }
  });

  it('ASK to a half-open target: ASKING and the command are one probe, which closes it', async () => {
    const redis = await open({ circuitBreaker: { ...BREAKER, openDuration: 500, halfOpenProbeCount: 1 } });
    const [source, target] = cluster.primaries as [ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, source, 'askprobe');
    await redis.set(`${tag}:k`, 'v');
    const targetKeys = keysOn(target, 'probetrip');
    await trip(redis, target, targetKeys);
    const migration = await cluster.beginMigration(slot, target);
    try {
      await cluster.moveKeys(migration);
      const rejected = await outcome(redis.get(targetKeys[0]!));
      expectRejectedBy(rejected, target);
      await new Promise((resolve) => setTimeout(resolve, (rejected as RespireCircuitOpenError).retryAfter!));
      expect(await redis.get(`${tag}:k`)).toBe('v');
      expect(redis.circuitOf(kit.proxied.dialled(target))?.state).toBe('closed');
    } finally {
      await cluster.finishMigration(migration);
    }
  });
});

describe('a retry whose owner is disconnected and open (seed 000 "Retries")', () => {
  it('asks the other primaries for the owner: a moved slot’s new owner admits it', async () => {
    const redis = await open({
      retry: { maxAttempts: 2 },
      circuitBreaker: { ...BREAKER, minimumFailureCount: 1 },
    });
    const [owner, next] = cluster.primaries as [ClusterNode, ClusterNode];
    const { tag, slot } = tagOn(cluster, owner, 'retrymoved');
    await redis.set(`${tag}:k`, 'v'); // one success: the one failure below makes the rate 0.5
    await cluster.migrateSlot(slot, next);
    // The GET is written before the client sees its connection reset: it fails (read-only, so
    // retried), the owner's circuit opens, and the retry finds it disconnected and open.
    await kit.proxied.proxyOf(owner).setMode('refuse');
    const reply = redis.get(`${tag}:k`);
    await kit.proxied.proxyOf(owner).closeAllConnections();
    expect(await reply).toBe('v');
    expect(redis.circuitOf(kit.proxied.dialled(owner))?.state).toBe('open');
  });

  it('is rejected without connecting when the owner is unchanged', async () => {
    const redis = await open({
      retry: { maxAttempts: 2 },
      circuitBreaker: { ...BREAKER, minimumFailureCount: 1 },
    });
    const owner = cluster.primaries[2]!;
    const key = `${tagOn(cluster, owner, 'retrystays').tag}:k`;
    await redis.set(key, 'v');
    const proxy = kit.proxied.proxyOf(owner);
    await proxy.setMode('refuse');
    const reply = outcome(redis.get(key));
    await proxy.closeAllConnections();
    expectRejectedBy(await reply, owner);
  });
});

describe('topology refresh', () => {
  it('is not checked: it reads from a node whose circuit is open', async () => {
    // Seeds through the proxies too, so that black-holing them leaves only the open node.
    const redis = await open({
      endpoints: cluster.nodes.map((node) => kit.proxied.dialled(node)),
      connectTimeout: 300,
      cluster: { refreshInterval: 200 },
    });
    const [, target] = cluster.primaries as [ClusterNode, ClusterNode];
    await trip(redis, target, keysOn(target, 'refreshtrip'));
    await resetStats(cluster);
    await Promise.all(
      cluster.nodes
        .filter((node) => node.id !== target.id)
        .map((node) => kit.proxied.proxyOf(node).setMode('blackhole')),
    );
    await expect
      .poll(async () => (await commandCalls(cluster, target))['cluster|shards'] ?? 0, { timeout: 15_000 })
      .toBeGreaterThan(0);
    expect(redis.circuitOf(kit.proxied.dialled(target))?.state).toBe('open');
  });
});

describe('readFrom', () => {
  it.each(['replica', 'replicaPreferred'] as const)(
    "'%s' reads on replicas (READONLY on their connections) and writes on primaries",
    async (readFrom) => {
      const redis = await open({ readFrom, circuitBreaker: null });
      const keys = cluster.primaries.flatMap((node) => keysOn(node, `rf${readFrom}`, 2));
      await Promise.all(keys.map((key) => redis.set(key, 'v')));
      // Replication is asynchronous: wait until each replica has the keys before reading there.
      await expect.poll(() => Promise.all(keys.map((key) => redis.get(key)))).toEqual(keys.map(() => 'v'));
      await resetStats(cluster);
      await Promise.all(keys.map((key) => redis.get(key)));
      await Promise.all(keys.map((key) => redis.set(key, 'w')));
      const gets = await callsByPort(cluster, 'get');
      const sets = await callsByPort(cluster, 'set');
      for (const node of cluster.nodes) {
        expect(gets[node.port]).toBe(node.role === 'replica' ? 2 : 0);
        // A replica counts the SETs it replicates: only primaries are checked for writes.
        if (node.role === 'primary') expect(sets[node.port]).toBe(2);
      }
      const replica = cluster.nodes.find((node) => node.role === 'replica')!;
      const clients = String(await cluster.command(replica, ['CLIENT', 'LIST']));
      expect(clients).toMatch(/flags=r\b/);
    },
  );

  it.each(['replica', 'replicaPreferred'] as const)(
    "a replica's open circuit under '%s' rejects its reads, never sending them to the primary",
    async (readFrom) => {
      const redis = await open({ readFrom });
      const primary = cluster.primaries[0]!;
      const replica = cluster.replicasOf(primary)[0]!;
      const keys = keysOn(primary, `rfopen${readFrom}`);
      await trip(redis, replica, keys);
      await resetStats(cluster);
      expectRejectedBy(await outcome(redis.get(keys[3]!)), replica);
      expect((await commandCalls(cluster, primary)).get).toBeUndefined();
    },
  );

  it("'replica' with no healthy replica fails with RespireConnectionError", async () => {
    const primary = cluster.primaries[2]!;
    const replica = cluster.replicasOf(primary)[0]!;
    const server = cluster.server(replica);
    server.kill('SIGKILL');
    await server.waitForExit();
    try {
      // The cluster marks the replica failed after cluster-node-timeout.
      await expect
        .poll(async () => String(await cluster.command(primary, ['CLUSTER', 'NODES'])), { timeout: 20_000 })
        .toMatch(new RegExp(`^${replica.id} \\S+ \\S*fail\\b`, 'm'));
      const redis = await open({ readFrom: 'replica', circuitBreaker: null });
      const error = await outcome(redis.get(keysOn(primary, 'noreplica', 1)[0]!));
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect((error as RespireConnectionError).written).toBe(false);
    } finally {
      await cluster.restartNode(replica);
    }
  });
});
