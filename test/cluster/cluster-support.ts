// Shared by the Cluster fault tests: keys that land on a chosen node, per-node command counts from
// INFO commandstats (so a test sees where a command ran without MONITOR), and a fault proxy in
// front of every node with the `addressMap` that sends a client through them.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import type { RespireEndpoint } from '../../src/errors.js';
import { RespireClient, type RespireOptions } from '../../src/index.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import type { ClusterNode, NodeRef, RedisCluster } from '../kit/redis-cluster.js';

/** A hash tag whose slot `node` (a primary) serves, distinct per `salt`; keys `{tag}:…` share it. */
export function tagOn(cluster: RedisCluster, node: NodeRef, salt: string): { tag: string; slot: number } {
  for (let i = 0; ; i++) {
    const tag = `{${salt}${i}}`;
    const slot = keySlot(tag);
    if (cluster.ownerOf(slot).id === node.id) return { tag, slot };
  }
}

/** Calls per command on a node since its last `resetStats`, from INFO commandstats. */
export async function commandCalls(cluster: RedisCluster, node: NodeRef): Promise<Record<string, number>> {
  const text = String(await cluster.command(node, ['INFO', 'commandstats']));
  const calls: Record<string, number> = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1]!] = Number(match[2]);
  return calls;
}

/** CONFIG RESETSTAT on every running node. */
export async function resetStats(cluster: RedisCluster): Promise<void> {
  await Promise.all(
    cluster.nodes
      .filter((node) => node.running)
      .map((node) => cluster.command(node, ['CONFIG', 'RESETSTAT'])),
  );
}

/** Calls of `command` on each node, keyed by port. */
export async function callsByPort(cluster: RedisCluster, command: string): Promise<Record<number, number>> {
  const result: Record<number, number> = {};
  for (const node of cluster.nodes.filter((candidate) => candidate.running)) {
    result[node.port] = (await commandCalls(cluster, node))[command] ?? 0;
  }
  return result;
}

/** A fault proxy in front of every node; `addressMap` rewrites a node's address to its proxy's. */
export interface ProxiedCluster {
  readonly proxies: ReadonlyMap<number, FaultProxy>;
  /** The proxy in front of a node. */
  proxyOf(node: ClusterNode): FaultProxy;
  /** The address the client dials for a node (its proxy's). */
  dialled(node: ClusterNode): RespireEndpoint;
  addressMap(endpoint: RespireEndpoint): RespireEndpoint;
  stop(): Promise<void>;
}

export async function proxyEveryNode(cluster: RedisCluster): Promise<ProxiedCluster> {
  const proxies = new Map<number, FaultProxy>();
  for (const node of cluster.nodes) {
    proxies.set(node.port, await startFaultProxy({ target: { host: node.host, port: node.port } }));
  }
  const proxyOf = (node: ClusterNode): FaultProxy => proxies.get(node.port)!;
  return {
    proxies,
    proxyOf,
    dialled: (node) => ({ host: proxyOf(node).host, port: proxyOf(node).port }),
    addressMap: (endpoint) => {
      const proxy = proxies.get(endpoint.port);
      return proxy === undefined ? endpoint : { host: proxy.host, port: proxy.port };
    },
    stop: async () => {
      await Promise.all([...proxies.values()].map((proxy) => proxy.stop()));
    },
  };
}

/** A fault proxy per node for the file's tests, and clients through them. */
export interface ProxiedClients {
  /** The proxies; read inside a test or hook. */
  readonly proxied: ProxiedCluster;
  /** A Cluster client through the proxies (`addressMap`), no periodic refresh unless `options` says. */
  open(options?: Partial<RespireOptions>): Promise<RespireClient>;
}

/**
 * Registers hooks: the proxies start before the file's tests and stop after them; after each
 * test its clients close and every proxy passes traffic again. `defaults` apply to every client.
 */
export function useProxiedClients(
  cluster: RedisCluster,
  defaults: Partial<RespireOptions> = {},
): ProxiedClients {
  let proxied: ProxiedCluster | undefined;
  const clients: RespireClient[] = [];
  beforeAll(async () => {
    proxied = await proxyEveryNode(cluster);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all([...(proxied?.proxies.values() ?? [])].map((proxy) => proxy.setMode('pass')));
  });
  afterAll(async () => {
    await proxied?.stop();
  });
  return {
    get proxied() {
      if (proxied === undefined) throw new Error('the proxies are not running (used outside a test?)');
      return proxied;
    },
    async open(options = {}) {
      const client = await RespireClient.connect({
        endpoints: [cluster.endpoints[0]!],
        useCluster: true,
        ...defaults,
        ...options,
        cluster: { refreshInterval: 0, addressMap: this.proxied.addressMap, ...options.cluster },
      });
      clients.push(client);
      return client;
    },
  };
}

/**
 * One Cluster client for the file's tests, straight to the nodes (seed: the first node), opened
 * before them and closed after; call the returned function inside a test or hook.
 */
export function useClusterClient(
  cluster: RedisCluster,
  clusterOptions: RespireOptions['cluster'] = {},
  clientOptions: Omit<RespireOptions, 'endpoints' | 'useCluster' | 'cluster'> = {},
): () => RespireClient {
  let client: RespireClient | undefined;
  beforeAll(async () => {
    client = await RespireClient.connect({
      ...clientOptions,
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      cluster: clusterOptions,
    });
  });
  afterAll(async () => {
    await client?.close();
  });
  return () => {
    if (client === undefined) throw new Error('the Cluster client is not open (used outside a test?)');
    return client;
  };
}

/** The settled outcome of a promise, for asserting on errors. */
export function outcome<T>(promise: Promise<T>): Promise<T | unknown> {
  return promise.catch((error: unknown) => error);
}
