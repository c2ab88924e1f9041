// A failover group switch moved only the subscriptions the old member had confirmed. A subscribe
// still waiting for its confirmation was left on the old member: its promise resolved there, so
// the caller held a subscription on a member the group no longer used, and messages published on
// the new active member never reached it (issue 14 "Switching": subscriptions are re-established
// on the new member). And when the old member had confirmed subscriptions too, the switch sent it
// an UNSUBSCRIBE of every name, pending ones included: the pending subscribe still resolved, but
// its subscription then existed nowhere. Now a subscribe pending at the switch moves once the old
// member confirmed it, as the confirmed ones do (or its caller gets the old member's error).
import { describe, expect, it } from 'vitest';
import { useGroups, withClient } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

function subscribers(port: number, channel: string): Promise<unknown> {
  return withClient(port, (client) => client.send(['PUBSUB', 'NUMSUB', channel]));
}

/** Publishes on `port` until the listener heard it (a subscribe on the way there may be late). */
async function heard(port: number, channel: string, messages: string[]): Promise<void> {
  await waitUntil(
    `a message on ${channel} through port ${port}`,
    async () => {
      await withClient(port, (client) => client.publish(channel, 'hello'));
      return messages.includes('hello') ? true : JSON.stringify(await subscribers(port, channel));
    },
    { timeoutMs: 5_000 },
  );
}

describe('a failover switch while a subscribe is unconfirmed', () => {
  it('moves the subscription to the new member once the old one confirmed it', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const messages: string[] = [];
    const subscribed = group.client.subscribe('fg:pending', (message) => messages.push(String(message)));
    group.switchTo('west');
    await expect(subscribed).resolves.toBeUndefined();
    await heard(west.port, 'fg:pending', messages);
    await waitUntil(
      'no subscription left on east',
      async () => {
        const onEast = JSON.stringify(await subscribers(east.port, 'fg:pending'));
        return onEast === JSON.stringify(['fg:pending', 0]) ? true : onEast;
      },
      { timeoutMs: 5_000 },
    );
  });

  it('keeps a pending subscribe alive when confirmed ones move with it', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const early: string[] = [];
    const late: string[] = [];
    await group.client.subscribe('fg:early', (message) => early.push(String(message)));
    const subscribed = group.client.subscribe('fg:late', (message) => late.push(String(message)));
    group.switchTo('west');
    await expect(subscribed).resolves.toBeUndefined();
    await heard(west.port, 'fg:early', early);
    await heard(west.port, 'fg:late', late);
  });
});
