// Topology parsing against a live 7.0.15 cluster of 3 primaries and 3 replicas: CLUSTER SHARDS and
// CLUSTER SLOTS, in RESP2 and RESP3, with strings and Buffers, from a primary and from a replica,
// all describe the same cluster; every slot's owner serves a key of that slot, the others answer
// MOVED to it, and every replica replicates the primary the topology names.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot, SLOT_COUNT } from '../../src/cluster/key-slot.js';
import { classifyClusterError } from '../../src/cluster/redirect.js';
import { parseShardsReply } from '../../src/cluster/shards-reply.js';
import { parseSlotsReply } from '../../src/cluster/slots-reply.js';
import type { ClusterTopology } from '../../src/cluster/topology.js';
import { RespireClient, RespireServerError } from '../../src/index.js';
import { type RedisServer, startRedisServer } from '../kit/redis-server.js';
import { summarize } from './topology-summary.js';

const NODE_COUNT = 6;
let servers: RedisServer[] = [];
let clients: RespireClient[] = [];

/**
 * A small local cluster for this file only (the shared cluster kit lives in test/kit): six
 * cluster-enabled servers joined by `redis-cli --cluster create`, then polled until every node
 * reports the cluster ok and all six nodes online.
 */
async function startCluster(): Promise<void> {
  servers = await Promise.all(
    Array.from({ length: NODE_COUNT }, () =>
      startRedisServer({ args: ['--cluster-enabled', 'yes', '--cluster-node-timeout', '2000'] }),
    ),
  );
  const addresses = servers.map((server) => `${server.host}:${server.port}`);
  await promisify(execFile)('redis-cli', [
    '--cluster',
    'create',
    ...addresses,
    '--cluster-replicas',
    '1',
    '--cluster-yes',
  ]);
  clients = await Promise.all(
    servers.map((server) => RespireClient.connect({ endpoints: [{ host: server.host, port: server.port }] })),
  );
  const deadline = Date.now() + 30_000;
  while (!(await clusterSettled())) {
    if (Date.now() > deadline) throw new Error('the cluster did not settle in 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function clusterSettled(): Promise<boolean> {
  for (const client of clients) {
    const info = String(await client.send(['CLUSTER', 'INFO']));
    if (!info.includes('cluster_state:ok')) return false;
    const topology = parseShardsReply(await client.send(['CLUSTER', 'SHARDS']), { node: servers[0]! });
    if (topology.nodes.length !== NODE_COUNT || topology.nodes.some((node) => node.health !== 'online'))
      return false;
  }
  return true;
}

beforeAll(startCluster, 60_000);
afterAll(async () => {
  for (const client of clients) client.destroy();
  await Promise.all(servers.map((server) => server.stop()));
});

/** Index in `servers` of a topology node. */
const serverOf = (topology: ClusterTopology, node: number) =>
  servers.findIndex((server) => server.port === topology.nodes[node]!.endpoint.port);

/** The topology `command` gives when asked of `servers[at]` over `protocol`. */
async function askTopology(at: number, command: 'SHARDS' | 'SLOTS', protocol: 2 | 3, returnBuffers: boolean) {
  const server = servers[at]!;
  const client = await RespireClient.connect({
    endpoints: [{ host: server.host, port: server.port }],
    protocol,
    returnBuffers,
  });
  try {
    const reply = await client.send(['CLUSTER', command]);
    const source = { node: { host: server.host, port: server.port } };
    return command === 'SHARDS' ? parseShardsReply(reply, source) : parseSlotsReply(reply, source);
  } finally {
    await client.close();
  }
}

/** A key for every slot, found with keySlot and confirmed by the server's CLUSTER KEYSLOT. */
async function keyPerSlot(): Promise<string[]> {
  const keys: (string | undefined)[] = new Array(SLOT_COUNT);
  let found = 0;
  for (let i = 0; found < SLOT_COUNT; i++) {
    const key = `key:${i}`;
    const slot = keySlot(key);
    if (keys[slot] === undefined) {
      keys[slot] = key;
      found++;
    }
  }
  const confirmed = await Promise.all(keys.map((key) => clients[0]!.send(['CLUSTER', 'KEYSLOT', key!])));
  expect(confirmed).toEqual(Array.from({ length: SLOT_COUNT }, (_, slot) => slot));
  return keys as string[];
}

describe('topology of a live 7.0.15 cluster', () => {
  it('is the same from SHARDS and SLOTS, RESP2 and RESP3, strings and Buffers, primary and replica', async () => {
    const reference = await askTopology(0, 'SHARDS', 3, false);
    const sorted = (topology: ClusterTopology) => {
      const { nodes, ranges } = summarize(topology);
      return { nodes: nodes.sort(), ranges };
    };
    const expected = sorted(reference);
    expect(
      expected.nodes.filter((line) => line.includes(' primary online replicas 127.0.0.1:')),
    ).toHaveLength(3);
    expect(expected.nodes.filter((line) => line.includes(' replica online of '))).toHaveLength(3);
    const replica = serverOf(
      reference,
      reference.nodes.findIndex((node) => node.role === 'replica'),
    );
    for (const at of [0, replica]) {
      for (const command of ['SHARDS', 'SLOTS'] as const) {
        for (const protocol of [2, 3] as const) {
          for (const buffers of [false, true]) {
            const topology = await askTopology(at, command, protocol, buffers);
            expect(
              sorted(topology),
              `${command} from node ${at}, RESP${protocol}${buffers ? ', Buffers' : ''}`,
            ).toEqual(expected);
          }
        }
      }
    }
  });

  it('names for every slot the primary that serves it, and the others redirect there', async () => {
    const topology = await askTopology(1, 'SHARDS', 3, false);
    const keys = await keyPerSlot();
    const primaries = topology.nodes.filter((node) => node.role === 'primary').map((node) => node.index);
    const served = await Promise.all(
      keys.map((key, slot) =>
        clients[serverOf(topology, topology.slots[slot]!)]!.send(['EXISTS', key]).catch(
          (error: unknown) => error,
        ),
      ),
    );
    expect(served.filter((answer) => answer !== 0)).toEqual([]);
    // Ask a primary that does not own the slot: MOVED names the owner the topology gives.
    const sample = Array.from({ length: 64 }, (_, i) => Math.floor((i * SLOT_COUNT) / 64));
    for (const slot of sample) {
      const owner = topology.slots[slot]!;
      const other = primaries.find((index) => index !== owner)!;
      const error = await clients[serverOf(topology, other)]!.send(['EXISTS', keys[slot]!]).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(RespireServerError);
      const redirect = classifyClusterError(error as RespireServerError, {
        blankHost: topology.nodes[other]!.announced.host,
      });
      expect(redirect).toEqual({
        kind: 'moved',
        slot,
        target: expect.objectContaining({ key: topology.nodes[owner]!.key }),
      });
    }
  });

  it('lists each replica under the primary it replicates', async () => {
    const topology = await askTopology(2, 'SHARDS', 2, false);
    const replicas = topology.nodes.filter((node) => node.role === 'replica');
    expect(replicas).toHaveLength(3);
    for (const replica of replicas) {
      const role = (await clients[serverOf(topology, replica.index)]!.send(['ROLE'])) as unknown[];
      expect(role.slice(0, 3)).toEqual([
        'slave',
        '127.0.0.1',
        topology.nodes[replica.primary]!.endpoint.port,
      ]);
      expect(topology.nodes[replica.primary]!.replicas).toContain(replica.index);
    }
  });
});
