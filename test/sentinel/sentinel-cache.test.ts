// The client-side cache in Sentinel mode (issue 13): reads from replicas are covered by each
// replica's own tracking connection, which hears the writes the replica applies from its primary,
// so an entry read from a replica lagging behind is still invalidated once the write reaches it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { untilCached, untilEmpty } from '../client/cache/support.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';

const group = useRedisSentinel();

describe.each([3, 2] as const)('Sentinel client-side cache (RESP%i)', (protocol) => {
  let redis: RespireClient;
  beforeAll(async () => {
    redis = await RespireClient.connect({
      sentinel: { serviceName: group.serviceName, endpoints: [...group.sentinels] },
      readFrom: 'replica',
      protocol,
      clientSideCache: { maxEntries: 100 },
      connectTimeout: 2_000,
      reconnect: () => 50,
    });
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('caches replica reads and drops them when the primary’s write reaches the replicas', async () => {
    const key = `sentinel:cache:${protocol}`;
    await group.command(group.primary, ['SET', key, 'v1']);
    await group.command(group.primary, ['WAIT', '2', '1000']);
    expect(await untilCached(redis, () => redis.get(key))).toBe('v1');
    await group.command(group.primary, ['SET', key, 'v2']);
    await untilEmpty(redis);
    await group.command(group.primary, ['WAIT', '2', '1000']);
    expect(await redis.withoutCache().get(key)).toBe('v2');
  });
});
