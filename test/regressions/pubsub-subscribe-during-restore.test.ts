// Regression: subscribing to a name the client already held resolved at once while the subscriber
// connection was down or its restore not yet confirmed, although subscribe() "resolves once the
// server confirmed": a caller that subscribed, then had a message published (a reply channel),
// lost the message; and when the server refused to restore that name (ACL revoked), the call
// had still resolved, though its listener was dropped with the name. A subscribe of a held name
// now waits for the name's restore, and rejects with the server's refusal.
import { afterEach, describe, expect, it } from 'vitest';
import { RespireConnectionError, RespireServerError } from '../../src/index.js';
import { outcome, outcomeWithin, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { channelUser, nextSubscriberClose, nextSubscriberReconnect, recorder } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

afterEach(() => {
  process.removeAllListeners('warning');
});

describe.each([3, 2] as const)('subscribing to a held name during a restore (RESP%i)', (protocol) => {
  it('resolves only once the server holds the name again', async () => {
    const { proxy, client } = await clients.proxied({ protocol, reconnect: () => 10 });
    const admin = await clients.open();
    await client.subscribe(['held:a', 'held:b'], () => {});
    await client.psubscribe('held:*', () => {});
    const closed = nextSubscriberClose();
    await proxy.setMode('refuse');
    await proxy.closeAllConnections();
    await closed;
    const second = recorder('reply');
    const subscribed = client.subscribe('held:b', second.listener);
    expect(await outcomeWithin(subscribed, 50)).toBe('pending');
    await proxy.setMode('pass');
    await subscribed;
    expect(await admin.send(['PUBSUB', 'NUMSUB', 'held:b'])).toEqual(['held:b', 1]);
    expect(await admin.publish('held:b', 'reply')).toBe(2); // the channel and the pattern
    await second.received;
  });

  it('rejects with the refusal when the server refuses to restore the name', async () => {
    const admin = await clients.open();
    const username = `during${protocol}`;
    await channelUser(admin, username, ['keep', 'revoked']);
    const { proxy, client } = await clients.proxied({
      protocol,
      username,
      password: 'pw',
      reconnect: () => 10,
    });
    client.onPubSubError(() => {});
    await client.subscribe(['keep', 'revoked'], () => {});
    const closed = nextSubscriberClose();
    await proxy.setMode('refuse');
    await proxy.closeAllConnections();
    await closed;
    await admin.send(['ACL', 'SETUSER', username, 'resetchannels', '&keep']);
    const kept = client.subscribe('keep', () => {});
    const revoked = client.subscribe('revoked', () => {});
    const reconnected = nextSubscriberReconnect();
    await proxy.setMode('pass');
    await reconnected;
    expect((await outcome(revoked)).error).toMatchObject({ code: 'NOPERM' });
    expect((await outcome(revoked)).error).toBeInstanceOf(RespireServerError);
    await kept;
    expect(await admin.send(['PUBSUB', 'NUMSUB', 'keep'])).toEqual(['keep', 1]);
  });

  it('rejects when the client closes before the restore', async () => {
    const { proxy, client } = await clients.proxied({ protocol, reconnect: () => 10 });
    await client.subscribe('held:c', () => {});
    const closed = nextSubscriberClose();
    await proxy.setMode('refuse');
    await proxy.closeAllConnections();
    await closed;
    // Observed before close(): it rejects the subscribe at once, and close() itself may take a
    // few ticks, long enough for an unobserved rejection to be reported as unhandled.
    const waiting = outcome(client.subscribe('held:c', () => {}));
    await client.close();
    expect((await waiting).error).toBeInstanceOf(RespireConnectionError);
  });
});
