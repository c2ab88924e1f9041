// Issue 11 "Routing" (`COMMAND GETKEYS` for movable-key shapes, cached per shape), against a real
// cluster whose nodes rename ZUNIONSTORE to ZUS and SORT to SORTX, so that the client's command
// table knows neither (as with a module's command or a newer server's). Such commands went to a
// primary taken in turn, to be redirected with MOVED (and a topology refresh) most of the time.
// Now the server's key specs (COMMAND INFO, once per command name) route them straight to their
// slot's owner (SORTX's `unknown` specs are SORT's, which the client reads natively). COMMAND
// GETKEYS, for specs that cannot say, needs a module command: test/cluster/key-lookup.test.ts.
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { resetStats, tagOn, useClusterClient } from '../cluster/cluster-support.js';
import type { ClusterNode } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster({
  configLines: ['rename-command ZUNIONSTORE ZUS', 'rename-command SORT SORTX'],
});
const client = useClusterClient(cluster, { refreshInterval: 0 });

/** `field` of `command`'s line in a node's INFO commandstats (0 when absent). */
async function stat(node: ClusterNode, command: string, field: 'calls' | 'rejected_calls'): Promise<number> {
  const text = String(await cluster.command(node, ['INFO', 'commandstats']));
  const line = new RegExp(`^cmdstat_${command.replace('|', '\\|')}:(.*)$`, 'm').exec(text)?.[1] ?? '';
  return Number(new RegExp(`(?:^|,)${field}=(\\d+)`).exec(line)?.[1] ?? 0);
}

async function total(command: string, field: 'calls' | 'rejected_calls'): Promise<number> {
  const counts = await Promise.all(cluster.primaries.map((node) => stat(node, command, field)));
  return counts.reduce((sum, count) => sum + count, 0);
}

describe('a command the table does not know', () => {
  it('is routed by the server’s key specs, asked once per command name', async () => {
    const redis = client();
    await resetStats(cluster);
    for (const [i, node] of cluster.primaries.entries()) {
      for (let j = 0; j < 3; j++) {
        const { tag } = tagOn(cluster, node, `zus${i}-${j}`);
        await redis.send(['ZADD', `${tag}:a`, '1', 'x']);
        await redis.send(['ZADD', `${tag}:b`, '2', 'y']);
        expect(await redis.send(['ZUS', `${tag}:out`, '2', `${tag}:a`, `${tag}:b`])).toBe(2);
        expect(await cluster.command(node, ['ZCARD', `${tag}:out`])).toBe(2);
      }
    }
    expect(await total('zunionstore', 'rejected_calls')).toBe(0); // no MOVED
    expect(await total('zunionstore', 'calls')).toBe(9);
    expect(await total('command|info', 'calls')).toBe(1);
    expect(await total('command|getkeys', 'calls')).toBe(0);
  });

  it('named after a command whose unknown specs the client reads natively (SORT) needs no GETKEYS', async () => {
    const redis = client();
    await resetStats(cluster);
    for (const [i, node] of cluster.primaries.entries()) {
      const { tag } = tagOn(cluster, node, `sortx${i}`);
      await redis.send(['RPUSH', `${tag}:list`, '3', '1', '2']);
      expect(await redis.send(['SORTX', `${tag}:list`, 'STORE', `${tag}:sorted`])).toBe(3);
      expect(await cluster.command(node, ['LRANGE', `${tag}:sorted`, '0', '-1'])).toEqual(['1', '2', '3']);
    }
    expect(await total('sort', 'rejected_calls')).toBe(0);
    expect(await total('command|info', 'calls')).toBe(1);
    expect(await total('command|getkeys', 'calls')).toBe(0);
    // Keys in two slots: CROSSSLOT from the client, as for a table command, nothing sent.
    const other = cluster.ownerOf(keySlot('{b}'));
    const before = await stat(other, 'sort', 'calls');
    await expect(redis.send(['SORTX', '{a}list', 'STORE', '{b}sorted'])).rejects.toMatchObject({
      code: 'CROSSSLOT',
    });
    expect(await stat(other, 'sort', 'calls')).toBe(before);
  });

  it('the table’s movable-key shapes go straight to their owner, with no lookup', async () => {
    const redis = client();
    await resetStats(cluster);
    for (const [i, node] of cluster.primaries.entries()) {
      const { tag } = tagOn(cluster, node, `movable${i}`);
      await redis.send(['XADD', `${tag}:s`, '*', 'f', 'v']);
      await redis.send(['GEOADD', `${tag}:g`, '13.36', '38.11', 'p']);
      await redis.send(['RPUSH', `${tag}:l`, 'a']);
      await redis.send(['SADD', `${tag}:x`, 'a']);
      expect(await redis.send(['EVAL', 'return #KEYS', '2', `${tag}:a`, `${tag}:b`, 'arg'])).toBe(2);
      expect(await redis.send(['XREAD', 'COUNT', '1', 'STREAMS', `${tag}:s`, '0'])).not.toBeNull();
      expect(await redis.send(['GEORADIUS', `${tag}:g`, '13', '38', '500', 'km', 'STORE', `${tag}:gs`])).toBe(
        1,
      );
      expect(await redis.send(['ZINTERSTORE', `${tag}:z`, '1', `${tag}:gs`])).toBe(1);
      expect(await redis.send(['LMPOP', '2', `${tag}:none`, `${tag}:l`, 'LEFT'])).toEqual([
        `${tag}:l`,
        ['a'],
      ]);
      expect(await redis.send(['SINTERCARD', '1', `${tag}:x`])).toBe(1);
    }
    for (const command of ['eval', 'xread', 'georadius', 'zinterstore', 'lmpop', 'sintercard']) {
      expect(await total(command, 'rejected_calls'), command).toBe(0);
    }
    expect(await total('command|info', 'calls')).toBe(0);
    expect(await total('command|getkeys', 'calls')).toBe(0);
  });
});
