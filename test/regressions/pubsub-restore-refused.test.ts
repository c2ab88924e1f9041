// Regression (issue 19 #6): a subscription the server refused to restore after a reconnect (its
// channel permission revoked) threw an uncaught RespireServerError from a microtask, and took the
// still-permitted channels of the same SUBSCRIBE down with it. Now the permitted names are
// subscribed again one by one, and the refused ones are reported to `onPubSubError` listeners (or
// as a process warning when there are none), never thrown.
import { afterEach, describe, expect, it } from 'vitest';
import { type PubSubErrorEvent, RespireServerError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { channelUser, nextSubscriberReconnect, recorder } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

let user = 0;

afterEach(() => {
  process.removeAllListeners('warning');
});

describe.each([3, 2] as const)('a restore the server refuses (RESP%i)', (protocol) => {
  async function setUp() {
    const admin = await clients.open();
    const username = `restorer${++user}`;
    await channelUser(admin, username, ['keep:*', 'revoked']);
    const client = await clients.open({ protocol, username, password: 'pw', reconnect: () => 10 });
    const kept = recorder('still here');
    await client.subscribe(['keep:a', 'revoked', 'keep:b'], kept.listener);
    const reconnected = nextSubscriberReconnect();
    // Redis disconnects the clients subscribed to a channel their user may no longer use.
    await admin.send(['ACL', 'SETUSER', username, 'resetchannels', '&keep:*']);
    return { admin, client, kept, reconnected };
  }

  it('reports the refused name to onPubSubError and subscribes the permitted ones again', async () => {
    const reports: [unknown, PubSubErrorEvent][] = [];
    let reported!: () => void;
    const firstReport = new Promise<void>((resolve) => (reported = resolve));
    const { admin, client, kept, reconnected } = await setUp();
    client.onPubSubError((error, event) => {
      reports.push([error, event]);
      reported();
    });
    await reconnected;
    await firstReport;
    // Written after the names subscribed again.
    await client.subscribe('keep:marker', () => {});
    expect(reports).toHaveLength(1);
    const [error, event] = reports[0]!;
    expect(error).toBeInstanceOf(RespireServerError);
    expect(error).toMatchObject({ code: 'NOPERM' });
    expect(event).toEqual({ source: 'restore', kind: 'channel', names: ['revoked'] });
    expect(await admin.publish('keep:b', 'still here')).toBe(1);
    await kept.received;
    expect(await admin.publish('keep:a', 'a')).toBe(1);
  });

  it('without a listener, warns instead of throwing', async () => {
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    const { admin, client, reconnected } = await setUp();
    await reconnected;
    const warning = await warned;
    expect(warning.message).toMatch(/NOPERM/);
    await client.subscribe('keep:marker', () => {});
    expect(await admin.publish('keep:a', 'a')).toBe(1);
  });
});
