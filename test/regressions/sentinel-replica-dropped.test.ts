// Sentinel (issue 12, readFrom on replicas): reads routed to a replica that died waited on its
// reconnects (round robin did not look at connections), and when the sentinels dropped it from the
// list its node was closed with them queued, failing them with "the client is closed" while
// another replica could serve them. Reads now go to a connected replica first. Reads already
// queued on a replica the sentinels drop move to another replica (or to the primary under
// 'replicaPreferred'), keeping their deadline; with readFrom 'replica' and none left, they fail
// with an error that says so instead of "the client is closed".
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
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

it("readFrom 'replica': reads queued on replicas the sentinels drop fail clearly when none is left", async () => {
  const victims = [...group.replicas];
  const closed = new Set<number>();
  const onClose = (message: unknown): void => {
    const { endpoint, role } = message as { endpoint: { port: number }; role: string };
    if (role === 'shared') closed.add(endpoint.port);
  };
  subscribe('respire:connection:close', onClose);
  try {
    for (const victim of victims) group.dataServer(victim).kill('SIGKILL');
    for (const victim of victims) await group.dataServer(victim).waitForExit();
    // The client has seen both replica connections end: reads now queue on one of them.
    await expect.poll(() => victims.every((victim) => closed.has(victim.port))).toBe(true);
    const reads = await Promise.allSettled(Array.from({ length: 4 }, () => redis.get('sentinel-dropped:k')));
    for (const read of reads) {
      expect(read.status).toBe('rejected');
      expect(String((read as PromiseRejectedResult).reason)).toMatch(/no healthy replica of mymaster/);
    }
  } finally {
    unsubscribe('respire:connection:close', onClose);
    // Together: the kit does not know they were killed, so each restart waits for both to be back.
    group.beforeNextTest(async () => {
      await Promise.all(victims.map((victim) => group.restartDataNode(victim)));
    });
  }
}, 60_000);
