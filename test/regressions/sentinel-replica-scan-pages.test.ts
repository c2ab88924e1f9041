// Sentinel, readFrom on replicas (issue 12; seed 000 "Sentinel": scan cursor pages stay on their
// connection). Each SCAN page is a read-only command, so under readFrom 'replica' the pages of one
// walk took turns between the replicas: a cursor one replica handed out was continued on another,
// whose hash table and replication offset are its own, so SCAN's guarantee (every key present for
// the whole walk is returned) no longer held. Cursor pages now go to one replica while the set of
// connected replicas stays the same: the first connected one in the (address-sorted) list.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RespireClient } from '../../src/index.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();
let redis: RespireClient;

beforeAll(async () => {
  redis = await sentinelClient(group, { readFrom: 'replica' });
});
afterAll(async () => {
  await redis?.close();
});

/** Calls of `command` that `node` has answered (INFO commandstats). */
async function calls(node: { port: number }, command: string): Promise<number> {
  const info = String(await group.command(node, ['INFO', 'commandstats']));
  const match = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info);
  return match === null ? 0 : Number(match[1]);
}

it("readFrom 'replica': the pages of one SCAN walk go to one replica", async () => {
  const keys = Array.from({ length: 40 }, (_, i) => `scan-pages:${i}`);
  for (const key of keys) await redis.set(key, 'v');
  await redis.send(['WAIT', '2', '5000']);
  const replicas = group.replicas;
  // Both replicas connected and serving reads (reads take turns between connected replicas).
  const before = await Promise.all(replicas.map((node) => calls(node, 'get')));
  await expect
    .poll(
      async () => {
        await redis.get(keys[0]!);
        const now = await Promise.all(replicas.map((node) => calls(node, 'get')));
        return now.every((count, i) => count > before[i]!);
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  const scansBefore = await Promise.all(replicas.map((node) => calls(node, 'scan')));
  const seen = new Set<string>();
  for await (const key of redis.scanIterator({ match: 'scan-pages:*', count: 5 })) seen.add(String(key));
  expect([...seen].sort()).toEqual([...keys].sort());
  const scans = (await Promise.all(replicas.map((node) => calls(node, 'scan')))).map(
    (count, i) => count - scansBefore[i]!,
  );
  // Several pages, all on one replica.
  expect(Math.max(...scans)).toBeGreaterThan(2);
  expect(Math.min(...scans)).toBe(0);
}, 60_000);
