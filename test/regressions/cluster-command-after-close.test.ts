// Found by the deterministic simulation (issue 16, Cluster world: `npm run simulate -- --seed 1
// --mode cluster`): a command sent after close() for a slot whose node the client had not used
// yet made that node afresh, after the others were closed; it opened connections that nothing
// closed any more, and the command ran on the server although the client was closed. A node made
// after close() is now closed at once, so the command fails as every other one does after close().
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster);

describe('a Cluster client after close()', () => {
  it('fails a command for a node it never used as closed, without connecting to it', async () => {
    const client = await kit.open();
    const seed = cluster.endpoints[0]!;
    const unused = cluster.primaries.find((node) => node.port !== seed.port)!;
    const key = `${tagOn(cluster, unused, 'after-close').tag}:${randomUUID()}`;
    await client.close();
    const proxy = kit.proxied.proxyOf(unused);
    const before = proxy.connectionsAccepted;
    await expect(client.set(key, 'v')).rejects.toThrow('the client is closed');
    expect(proxy.connectionsAccepted).toBe(before);
    expect(await cluster.command(unused, ['GET', key])).toBeNull();
  });
});
