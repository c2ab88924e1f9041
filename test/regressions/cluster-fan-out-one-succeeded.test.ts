// Issue 11 "Routing" (keyless commands by their response-policy tip, PROTOCOL.md §2.2) against a
// real cluster: SCRIPT KILL goes to every primary with `response_policy:one_succeeded` (a success
// when at least one shard answered without an error), but any part's error failed the command. So
// with a script running on one primary, the others' NOTBUSY rejected SCRIPT KILL though it had
// killed the script: the caller was told no script was running. Now a one_succeeded fan-out answers
// with the first reply that is not an error, and fails only when every part failed.
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { outcome, useClusterClient } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();
const client = useClusterClient(cluster, { refreshInterval: 0 });

describe('SCRIPT KILL (one_succeeded) with a script running on one primary', () => {
  it('answers OK: the script is killed, the other primaries’ NOTBUSY do not fail it', async () => {
    const redis = client();
    // Every primary's connection made first.
    expect(await redis.dbsize()).toBeGreaterThanOrEqual(0);
    const busy = cluster.primaries[cluster.primaries.length - 1] as ClusterNode;
    await cluster.command(busy, ['CONFIG', 'SET', 'busy-reply-threshold', '50']);
    const running = outcome(cluster.command(busy, ['EVAL', 'while true do end', '0'], { timeoutMs: 20_000 }));
    await waitUntil(
      'the script to make its node busy',
      async () => {
        const ping = await outcome(cluster.command(busy, ['PING']));
        return String(ping).includes('BUSY') ? true : `PING: ${String(ping)}`;
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    const killed = await outcome(redis.send(['SCRIPT', 'KILL']));
    // Before the fix the script was killed all the same; make sure it ends in any case.
    if (killed !== 'OK') await cluster.command(busy, ['SCRIPT', 'KILL']).catch(() => undefined);
    expect(killed).toBe('OK');
    const ended = await running;
    // The kit's own connection: the script's EVAL ended as killed.
    expect(String((ended as Error).message)).toMatch(/killed by user/);
    // With no script running anywhere, every part fails: the command fails with NOTBUSY.
    const none = await outcome(redis.send(['SCRIPT', 'KILL']));
    expect(none).toBeInstanceOf(RespireServerError);
    expect((none as RespireServerError).code).toBe('NOTBUSY');
  });
});
