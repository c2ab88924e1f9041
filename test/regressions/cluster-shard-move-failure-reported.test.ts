// Issue 11 "Routing" (`ssubscribe` resubscribed when the slot moves or the server sends
// `sunsubscribe`) meets issue 19's onPubSubError (a subscription lost away from any caller's
// promise is told there), against a real cluster behind the fault proxy: a shard channel whose
// slot migrated to a node the client could not reach was dropped by the old owner, and the
// subscribe on the new owner failed; the router swallowed that failure (its comment said it went to
// onPubSubError), so the listener was subscribed nowhere and nobody was told. Now it is reported as
// a failed restore, as a move of a failed node's subscriptions is (move-subscriptions.ts).
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import type { PubSubErrorEvent } from '../../src/index.js';
import { useProxiedClients } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const cluster = useRedisCluster();
const kit = useProxiedClients(cluster, { connectTimeout: 500, acquireTimeout: 1_000 });

describe('a shard channel whose slot moves to a node the client cannot reach', () => {
  it('is reported to onPubSubError, not forgotten silently', async () => {
    const redis = await kit.open();
    const events: PubSubErrorEvent[] = [];
    redis.onPubSubError((_error, event) => events.push(event));
    const channel = 'shard-move-failure:news';
    const slot = keySlot(channel);
    await redis.ssubscribe(channel, () => undefined);
    const source = cluster.ownerOf(slot);
    const target = cluster.primaries.find((node) => node.id !== source.id)!;
    await kit.proxied.proxyOf(target).setMode('refuse');
    await cluster.migrateSlot(slot, target);
    await waitUntil(
      'the lost shard channel to be reported',
      async () =>
        events.some((event) => event.kind === 'shard' && event.names.includes(channel)) ||
        JSON.stringify(events),
      { timeoutMs: 10_000 },
    );
    expect(events.find((event) => event.names.includes(channel))?.source).toBe('restore');
  }, 30_000);
});
