// Issue 11 "Routing" (keys of a command the table does not know, from the server: key-lookup.ts)
// meeting a black-holed node, against a real cluster whose nodes rename ZUNIONSTORE to ZUS (as with
// a module's command). The lookup (COMMAND INFO) ran under the client's `commandTimeout`, not the
// caller's deadline: a call made with `{ timeout: 300 }` while the node asked was black-holed
// waited the client's 20 s before its command was even sent. Now the lookup runs under the
// caller's deadline, and a lookup that uses it up fails the call (RespireTimeoutError, the command
// not written) instead of sending it on with no time left.
import { describe, expect, it } from 'vitest';
import { RespireTimeoutError } from '../../src/index.js';
import { outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster({ configLines: ['rename-command ZUNIONSTORE ZUS'] });
const kit = useProxiedClients(cluster, { commandTimeout: 20_000 });

describe('a command the table does not know, its key lookup meeting a black-holed node', () => {
  it('fails within the caller’s deadline, unsent, instead of the client’s commandTimeout', async () => {
    const redis = await kit.open();
    const { tag } = tagOn(cluster, cluster.primaries[0]!, 'deadline');
    // Every primary's connection open first (the lookup then waits for a reply, not a connection).
    for (const [i, primary] of cluster.primaries.entries()) {
      await redis.get(`${tagOn(cluster, primary, `warm${i}`).tag}:k`);
    }
    // Every primary black-holed: whichever one the lookup asks, it gets no answer.
    for (const primary of cluster.primaries) await kit.proxied.proxyOf(primary).setMode('blackhole');
    const started = performance.now();
    const error = await outcome(redis.send(['ZUS', `${tag}:out`, '1', `${tag}:a`], { timeout: 300 }));
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(RespireTimeoutError);
    expect((error as RespireTimeoutError).written).toBe(false);
    // The caller's 300 ms, not the client's 20 s (a generous bound for a loaded machine).
    expect(elapsed).toBeLessThan(5000);
    for (const primary of cluster.primaries) await kit.proxied.proxyOf(primary).setMode('pass');
    expect(await cluster.command(cluster.primaries[0]!, ['EXISTS', `${tag}:out`])).toBe(0);
  });
});
