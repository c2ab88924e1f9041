// Following the group (issue 12 "Discovery"): a replica killed leaves the replica list when the
// sentinels mark it s_down and comes back with -sdown; the event subscription moves to another
// sentinel when its sentinel dies; a planned failover is seen through +switch-master, confirmed by
// ROLE, and the replica list follows it. One group for the file, so the tests run in order.
import { describe, expect, it, vi } from 'vitest';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { nextPrimaryChange, ports, replicasWhere, reported, watch } from './support.js';

const group = useRedisSentinel();

/** down-after-milliseconds is 2 s (the kit's): s_down and -sdown come within a few seconds. */
const SENTINEL_NOTICE_MS = 8_000;

describe('SentinelWatcher following the group', () => {
  it('drops a killed replica from the list once it is s_down, and takes it back (RESP2 events)', async () => {
    // Over RESP2 the events arrive as plain arrays on the subscribed connection, not as pushes.
    const data = { tls: undefined, connectTimeout: 2000, protocol: 2 as const };
    const watcher = await watch(group, { watchReplicas: true, data });
    const [victim, other] = group.replicas;
    expect(ports(watcher.replicas())).toEqual(ports([victim!, other!]));
    const monitored = watcher.monitoredSentinel;

    const server = group.dataServer(victim!);
    server.kill('SIGKILL');
    await server.waitForExit();
    expect(ports(await replicasWhere(watcher, (list) => list.length === 1, SENTINEL_NOTICE_MS))).toEqual([
      other!.port,
    ]);

    await group.restartDataNode(victim!);
    await replicasWhere(watcher, (list) => list.length === 2, SENTINEL_NOTICE_MS);
    expect(ports(watcher.replicas())).toEqual(ports([victim!, other!]));
    // The subscription (PINGed every second, RESP2 answers `pong` as an array) never broke.
    expect(watcher.monitoredSentinel).toBe(monitored);
    expect(reported.get(watcher)).toEqual([]);
  });

  it('moves its event subscription to another sentinel when that sentinel dies', async () => {
    const watcher = await watch(group);
    const first = watcher.monitoredSentinel!;
    const index = group.sentinels.findIndex((sentinel) => sentinel.port === first.port);
    const server = group.sentinelServer(index);
    server.kill('SIGKILL');
    await server.waitForExit();
    try {
      await vi.waitFor(() => {
        const now = watcher.monitoredSentinel;
        expect(now).toBeDefined();
        expect(now!.port).not.toBe(first.port);
      }, SENTINEL_NOTICE_MS);
      expect(ports(group.sentinels)).toContain(watcher.monitoredSentinel!.port);
    } finally {
      await server.restart();
      await group.settle({ untilSettled: false });
    }
  });

  it('sees a planned failover through +switch-master, confirms it by ROLE, and the replicas follow', async () => {
    const watcher = await watch(group, { watchReplicas: true });
    const old = watcher.primary;
    const change = nextPrimaryChange(watcher, 30_000);
    const promoted = await group.failover({ untilSettled: false });
    const { from, to, reason } = await change;
    expect(reason).toBe('switch-master');
    expect(from).toEqual(old);
    expect(to.port).toBe(promoted.port);
    expect(watcher.primary).toEqual(to);
    expect(((await group.command(to, ['ROLE'])) as unknown[])[0]).toBe('master');
    // The promoted node leaves the replica list; the other replica stays in it.
    const stayed = group.replicas.find((node) => node.port !== old.port)!;
    const replicas = await replicasWhere(
      watcher,
      (list) => !list.some((node) => node.port === to.port) && list.some((node) => node.port === stayed.port),
      SENTINEL_NOTICE_MS,
    );
    expect(replicas.map((node) => node.port)).not.toContain(to.port);
  });
});
