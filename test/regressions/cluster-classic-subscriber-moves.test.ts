// Issue 11 "Routing" (pub/sub: `subscribe`/`psubscribe` on one node, moved when it fails), against a
// real cluster: the classic subscriptions stayed on their node when it failed, so nothing published
// afterwards arrived. Now they move to another live primary, and each publish is heard once (the old
// node's subscriptions are dropped first, so a node that comes back delivers nothing twice).
import { describe, expect, it } from 'vitest';
import { RespireTimeoutError } from '../../src/index.js';
import { outcome, tagOn, useProxiedClients } from '../cluster/cluster-support.js';
import type { ClusterNode, RedisCluster } from '../kit/redis-cluster.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { recorder } from './pubsub-support.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster, { commandTimeout: 300 });

/** The running nodes whose connections subscribe to `channel` (classic subscribers are node-local). */
async function holdersOf(redis: RedisCluster, channel: string): Promise<ClusterNode[]> {
  const holders: ClusterNode[] = [];
  for (const node of redis.nodes.filter((candidate) => candidate.running)) {
    const reply = (await redis.command(node, ['PUBSUB', 'NUMSUB', channel])) as [string, number];
    if (Number(reply[1]) > 0) holders.push(node);
  }
  return holders;
}

/** Whether a node other than `old` now holds a subscription to `channel`. */
async function movedFrom(old: ClusterNode, channel: string): Promise<boolean> {
  return (await holdersOf(cluster, channel)).some((node) => node.id !== old.id);
}

/** Publishes `message` through a running node other than `avoid`; classic messages reach every node. */
async function publish(channel: string, message: string, avoid: ClusterNode): Promise<void> {
  const node = cluster.nodes.find((candidate) => candidate.running && candidate.id !== avoid.id)!;
  await cluster.command(node, ['PUBLISH', channel, message]);
}

describe('classic subscriptions when their node fails', () => {
  it('move off a black-holed node; each later publish is heard once, also after it heals', async () => {
    const redis = await kit.open();
    const channel = 'moves:blackhole';
    const first = recorder('one');
    await redis.subscribe(channel, first.listener);
    const [holder] = (await holdersOf(cluster, channel)) as [ClusterNode];
    expect(holder).toBeDefined();
    const proxy = kit.proxied.proxyOf(holder);
    await proxy.setMode('blackhole');
    // The client learns the node failed from a command that gets no answer: its connection, silent
    // past the deadline, is replaced (a single slow command would not move the subscriptions).
    const { tag } = tagOn(cluster, holder, 'bh');
    expect(await outcome(redis.get(`${tag}:k`))).toBeInstanceOf(RespireTimeoutError);
    await expect.poll(() => movedFrom(holder, channel)).toBe(true);
    await publish(channel, 'one', holder);
    await first.received;
    await proxy.setMode('pass');
    // The old node's subscription is gone (unsubscribed, or its connection replaced) once it heals.
    await expect
      .poll(async () => {
        const reply = (await cluster.command(holder, ['PUBSUB', 'NUMSUB', channel])) as [string, number];
        return Number(reply[1]);
      })
      .toBe(0);
    const second = recorder('two');
    await redis.subscribe('moves:blackhole:marker', second.listener);
    await publish(channel, 'two', holder);
    await publish('moves:blackhole:marker', 'two', holder);
    await second.received;
    expect(first.heard).toEqual(['one', 'two']);
  });

  it('move off a killed primary to a live node; each later publish is heard once', async () => {
    const redis = await kit.open();
    const channel = 'moves:killed:c';
    const pattern = 'moves:killed:c*';
    const heard = recorder('after');
    const matched = recorder('after');
    await redis.subscribe(channel, heard.listener);
    await redis.psubscribe(pattern, matched.listener);
    const [holder] = (await holdersOf(cluster, channel)) as [ClusterNode];
    expect(holder.role).toBe('primary');
    await cluster.killPrimary(holder);
    await expect.poll(() => movedFrom(holder, channel), { timeout: 10_000 }).toBe(true);
    await publish(channel, 'after', holder);
    await Promise.all([heard.received, matched.received]);
    const marker = recorder('end');
    await redis.subscribe('moves:killed:marker', marker.listener);
    await publish('moves:killed:marker', 'end', holder);
    await marker.received;
    expect(heard.heard).toEqual(['after']);
    expect(matched.heard).toEqual(['after']);
  });
});
