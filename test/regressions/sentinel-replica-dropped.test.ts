// Sentinel (issue 12, readFrom on replicas): reads routed to a replica that died waited on its
// reconnects (round robin did not look at connections), and when the sentinels dropped it from the
// list its node was closed with them queued, failing them with "the client is closed" while
// another replica could serve them. Reads now go to a connected replica first.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';

const group = useRedisSentinel();
let redis: RespireClient;

beforeAll(async () => {
  redis = await RespireClient.connect({
    sentinel: { serviceName: group.serviceName, endpoints: [...group.sentinels] },
    readFrom: 'replica',
    connectTimeout: 1_000,
    acquireTimeout: 60_000,
    reconnect: () => 50,
  });
});
afterAll(async () => {
  await redis?.close();
});

it("readFrom 'replica': reads meant for a dead replica are served by the other one", async () => {
  await redis.set('sentinel-dropped:k', 'v');
  await redis.send(['WAIT', '2', '5000']);
  expect(await redis.get('sentinel-dropped:k')).toBe('v');
  const victim = group.replicas[0]!;
  const server = group.dataServer(victim);
  server.kill('SIGKILL');
  await server.waitForExit();
  try {
    const reads = await Promise.allSettled(Array.from({ length: 10 }, () => redis.get('sentinel-dropped:k')));
    expect(
      reads
        .filter((read) => read.status === 'rejected')
        .map((read) => String((read as PromiseRejectedResult).reason)),
    ).toEqual([]);
  } finally {
    await group.restartDataNode(victim);
  }
});
