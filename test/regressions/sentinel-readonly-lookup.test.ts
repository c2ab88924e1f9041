// Sentinel (issue 12 "Discovery": resolve again on every reconnect and on a READONLY reply;
// PROTOCOL.md §3.10). A write answered READONLY by the node the client took for the primary (a
// demoted primary whose connection survived) made no new lookup: only a lost connection or a
// sentinel event did, so writes kept going to a replica. Now the READONLY reply makes the client
// ask the sentinels again. The write itself fails to its caller (the server refused it; the
// client does not replay it). The primary is demoted by hand (REPLICAOF to a closed port) so that
// neither a sentinel event nor a dropped connection can be what starts the lookup.
import { expect, it } from 'vitest';
import { RespireClient, RespireServerError } from '../../src/index.js';
import { findFreePort, LOOPBACK } from '../kit/free-port.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';

const group = useRedisSentinel();

/**
 * ROLE checks `node` has answered: each lookup ends with one on the node the sentinels name (the
 * sentinels themselves use INFO, and the kit runs ROLE only while it settles the group).
 */
async function roleChecks(node: { port: number }): Promise<number> {
  const info = String(await group.command(node, ['INFO', 'commandstats']));
  const match = /cmdstat_role:calls=(\d+)/.exec(info);
  return match === null ? 0 : Number(match[1]);
}

it('a READONLY reply from the primary makes the client ask the sentinels again', async () => {
  const primary = group.primary;
  const before = await roleChecks(primary);
  const redis = await RespireClient.connect({
    sentinel: { serviceName: group.serviceName, endpoints: [...group.sentinels] },
    connectTimeout: 1_000,
    reconnect: () => 50,
  });
  try {
    // Two lookups so far: connect's, and the one its event subscription starts once subscribed.
    await expect.poll(() => roleChecks(primary), { timeout: 5_000 }).toBe(before + 2);
    expect(await redis.set('readonly:k', 'v')).toBe('OK');
    await group.command(primary, ['REPLICAOF', LOOPBACK, String(await findFreePort())]);
    const refused = await redis.set('readonly:k', 'w').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RespireServerError);
    expect((refused as RespireServerError).code).toBe('READONLY');
    await expect.poll(() => roleChecks(primary), { timeout: 5_000 }).toBeGreaterThan(before + 2);
    // Not replayed: the demoted node still holds the first value.
    expect(await group.command(primary, ['GET', 'readonly:k'])).toBe('v');
  } finally {
    redis.destroy();
    await group.command(primary, ['REPLICAOF', 'NO', 'ONE']);
    await group.settle();
  }
}, 60_000);
