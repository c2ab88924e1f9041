// Sentinel (issue 12 "Discovery": resolve again on a READONLY reply; PROTOCOL.md §3.10). Only a
// single command or batch entry answered READONLY made the client ask the sentinels again: a
// transaction (its write refused at queue time, EXEC answered EXECABORT) or a WATCH session's
// command or commit did not, as they do not pass through the router's send. A client that writes
// only in transactions kept writing to a demoted primary. Now each of them starts a lookup too; the
// write still fails to its caller, unreplayed. The primary is demoted by hand (REPLICAOF to a
// closed port) so that neither a sentinel event nor a dropped connection can start the lookup.
import { afterEach, describe, expect, it } from 'vitest';
import { type RespireClient as Client, RespireServerError } from '../../src/index.js';
import { findFreePort, LOOPBACK } from '../kit/free-port.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();

/** ROLE checks `node` has answered: each lookup ends with one on the node the sentinels name. */
async function roleChecks(node: { port: number }): Promise<number> {
  const info = String(await group.command(node, ['INFO', 'commandstats']));
  const match = /cmdstat_role:calls=(\d+)/.exec(info);
  return match === null ? 0 : Number(match[1]);
}

let redis: Client | undefined;
afterEach(async () => {
  redis?.destroy();
  redis = undefined;
  await group.command(group.primary, ['REPLICAOF', 'NO', 'ONE']);
  await group.settle();
});

/**
 * A client of the group whose start-up lookups are over, with the primary then demoted by hand;
 * returns the ROLE count before the refused write.
 */
async function demotedPrimary(): Promise<{ client: Client; before: number }> {
  const primary = group.primary;
  const start = await roleChecks(primary);
  const client = await sentinelClient(group);
  redis = client;
  // Two lookups so far: connect's, and the one its event subscription starts once subscribed.
  await expect.poll(() => roleChecks(primary), { timeout: 5_000 }).toBe(start + 2);
  expect(await client.set('ro-tx:k', 'v')).toBe('OK');
  await group.command(primary, ['REPLICAOF', LOOPBACK, String(await findFreePort())]);
  return { client, before: start + 2 };
}

/**
 * Commits `tx` (a SET refused READONLY at queue time): EXEC is answered EXECABORT with the READONLY
 * as its cause, then a lookup follows (a ROLE check past `before`), and nothing was written.
 */
async function expectRefusedCommit(
  tx: { set(key: string, value: string): Promise<unknown>; exec(): Promise<unknown> },
  before: number,
): Promise<void> {
  tx.set('ro-tx:k', 'w').catch(() => undefined);
  const error = await tx.exec().catch((reason: unknown) => reason);
  expect(error).toBeInstanceOf(RespireServerError);
  expect((error as RespireServerError).code).toBe('EXECABORT');
  expect(((error as RespireServerError).cause as RespireServerError).code).toBe('READONLY');
  await expect.poll(() => roleChecks(group.primary), { timeout: 5_000 }).toBeGreaterThan(before);
  expect(await group.command(group.primary, ['GET', 'ro-tx:k'])).toBe('v');
}

describe('a READONLY reply outside single commands makes the client ask the sentinels again', () => {
  it('in a transaction', async () => {
    const { client, before } = await demotedPrimary();
    await expectRefusedCommit(client.multi(), before);
  }, 60_000);

  it("in a WATCH session's transaction", async () => {
    const { client, before } = await demotedPrimary();
    const session = await client.watch('ro-tx:k');
    await expectRefusedCommit(session.multi(), before);
  }, 60_000);

  it('in a WATCH session command', async () => {
    const { client, before } = await demotedPrimary();
    const session = await client.watch('ro-tx:k');
    const refused = await session.set('ro-tx:other', 'w').catch((error: unknown) => error);
    await session.release();
    expect(refused).toBeInstanceOf(RespireServerError);
    expect((refused as RespireServerError).code).toBe('READONLY');
    await expect.poll(() => roleChecks(group.primary), { timeout: 5_000 }).toBeGreaterThan(before);
  }, 60_000);
});
