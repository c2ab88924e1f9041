// The client-side cache in Cluster mode (issue 13): one tracking connection per node, each node's
// invalidations evicting its keys, and a node's lost tracking connection dropping only the entries
// read from that node; a key-prefixed view's entries are the client's (the full key).
import { afterEach, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { untilCached } from '../client/cache/support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { tagOn } from './cluster-support.js';

const cluster = useRedisCluster();

describe.each([3, 2] as const)('Cluster client-side cache (RESP%i)', (protocol) => {
  const clients: RespireClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy();
  });

  async function open(): Promise<RespireClient> {
    const redis = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      protocol,
      clientSideCache: { maxEntries: 100 },
      reconnect: { minDelay: 10, maxDelay: 10 },
    });
    clients.push(redis);
    return redis;
  }

  /** One key per primary, each cached. */
  async function cacheOnePerPrimary(redis: RespireClient): Promise<string[]> {
    const keys = cluster.primaries.map(
      (primary, i) => `${tagOn(cluster, primary, `csc${protocol}`).tag}:${i}`,
    );
    for (const key of keys) await redis.set(key, 'v');
    for (const key of keys) await untilCached(redis, () => redis.get(key));
    expect(redis.cacheStats!.entries).toBe(keys.length);
    return keys;
  }

  const entries = (redis: RespireClient) => redis.cacheStats!.entries;

  it('evicts a key when its node says another client wrote it, and only that key', async () => {
    const redis = await open();
    const keys = await cacheOnePerPrimary(redis);
    await cluster.command(cluster.primaries[1]!, ['SET', keys[1]!, 'changed']);
    await waitUntil('the invalidation', async () => entries(redis) === keys.length - 1 || 'not yet', {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    expect(await redis.get(keys[1]!)).toBe('changed');
    const { hits } = redis.cacheStats!;
    expect(await redis.get(keys[0]!)).toBe('v');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
  });

  it("drops only a node's entries when that node's tracking connection is lost", async () => {
    const redis = await open();
    const keys = await cacheOnePerPrimary(redis);
    const node = cluster.primaries[2]!;
    const list = String(await cluster.command(node, ['CLIENT', 'LIST']));
    const trackers = list
      .split('\n')
      .filter((line) => / flags=\S*B/.test(line))
      .map((line) => /\bid=(\d+)/.exec(line)![1]!);
    expect(trackers.length).toBeGreaterThanOrEqual(1);
    for (const id of trackers) await cluster.command(node, ['CLIENT', 'KILL', 'ID', id]);
    await waitUntil('the lost entries', async () => entries(redis) === keys.length - 1 || 'not yet', {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    const { hits } = redis.cacheStats!;
    expect(await redis.get(keys[0]!)).toBe('v');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    // The node's tracking connection comes back, and its keys are cached again.
    expect(await untilCached(redis, () => redis.get(keys[2]!))).toBe('v');
  });

  it("reads its own writes at once on any node, and a node's FLUSHALL drops everything", async () => {
    const redis = await open();
    const keys = await cacheOnePerPrimary(redis);
    await redis.set(keys[0]!, 'mine');
    expect(await redis.get(keys[0]!)).toBe('mine');
    await cluster.command(cluster.primaries[0]!, ['FLUSHALL']);
    await waitUntil('the flush', async () => entries(redis) === 0 || 'not yet', {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    expect(await redis.get(keys[0]!)).toBeNull();
    expect(await redis.get(keys[1]!)).toBe('v');
  });

  it('shares entries with a prefixed view, which hears another client write on the node', async () => {
    const redis = await open();
    const owner = cluster.primaries[2]!;
    const { tag } = tagOn(cluster, owner, `view${protocol}`);
    const app = redis.withKeyPrefix(`${tag}:`);
    await cluster.command(owner, ['SET', `${tag}:k`, 'v1']);
    expect(await untilCached(redis, () => app.get('k'))).toBe('v1');
    const { hits } = redis.cacheStats!;
    expect(await redis.get(`${tag}:k`)).toBe('v1');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    // The prefixed view reading through: the server's value, the entry left alone.
    expect(await app.withoutCache().get('k')).toBe('v1');
    expect(redis.cacheStats!.hits).toBe(hits + 1);
    await cluster.command(owner, ['SET', `${tag}:k`, 'v2']);
    await waitUntil('the invalidation', async () => (await app.get('k')) === 'v2' || 'still v1', {
      timeoutMs: 5000,
      intervalMs: 10,
    });
  });
});
