// A subscribe issued while the active member's subscriber connection was still being opened (the
// member had just become unreachable) had written nothing when the group switched away, yet it
// stayed on the old member: its caller waited for that member's connect timeout and then got a
// RespireTimeoutError, although the group had moved to a member that could serve it (issue 14
// "Switching": commands not yet accepted by the old member move; subscriptions are made on the
// new member). Now such a subscribe is made on the new member, and its caller's promise settles
// as that does.
import { describe, expect, it } from 'vitest';
import { outcomeWithin } from '../client/support.js';
import { useGroups, withClient } from '../failover/support.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('a subscribe whose connection was still opening when the group switched', () => {
  it('is made on the new member', async () => {
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: east.port } });
    try {
      const group = await groups.connect(
        { east: proxy.port, west: west.port },
        { failbackDelay: 600_000, member: { connectTimeout: 20_000 } },
      );
      await proxy.setMode('blackhole');
      const messages: string[] = [];
      const subscribed = group.client.subscribe('fg:opening', (message) => messages.push(String(message)));
      group.switchTo('west');
      expect(await outcomeWithin(subscribed, 5_000)).toEqual({ value: undefined });
      await waitUntil(
        'a message published on west',
        async () => {
          await withClient(west.port, (client) => client.publish('fg:opening', 'hello'));
          return messages.includes('hello') ? true : 'not yet';
        },
        { timeoutMs: 5_000 },
      );
    } finally {
      await proxy.stop();
    }
  });
});
