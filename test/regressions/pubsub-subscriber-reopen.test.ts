// Regression (issue 19 #11): once the reconnect policy gave up on the subscriber connection,
// subscribing again to a known name resolved with its old confirmation (nothing was sent) and a new
// name was refused as "the client is closed", while the rest of the client kept working. Now the
// subscriptions are reported lost (`onPubSubError`, source 'lost') and the next subscribe opens a
// new subscriber connection.
import { describe, expect, it } from 'vitest';
import { type PubSubErrorEvent, type ReconnectOption, RespireConnectionError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { killSubscribers, nextSubscriberClose, recorder } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

const GIVING_UP: [string, ReconnectOption][] = [
  ['reconnect: false', false],
  ['a policy that gives up', () => false],
];

describe.each([3, 2] as const)('the subscriber connection after the policy gave up (RESP%i)', (protocol) => {
  it.each(GIVING_UP)('reopens on the next subscribe (%s)', async (_, reconnect) => {
    const client = await clients.open({ protocol, reconnect });
    const admin = await clients.open();
    await client.subscribe(['known', 'other'], () => {});
    const closed = nextSubscriberClose();
    expect(await killSubscribers(admin)).toBe(1);
    await closed;
    expect(await client.ping()).toBe('PONG');
    const known = recorder('again');
    await client.subscribe('known', known.listener);
    expect(await admin.publish('known', 'again')).toBe(1);
    await known.received;
    const fresh = recorder('new');
    await client.subscribe('fresh', fresh.listener);
    expect(await admin.publish('fresh', 'new')).toBe(1);
    await fresh.received;
    // Forgotten with the connection: nothing subscribes to it any more.
    expect(await admin.publish('other', 'gone')).toBe(0);
  });

  it('reports the subscriptions lost to onPubSubError', async () => {
    const client = await clients.open({ protocol, reconnect: false });
    const admin = await clients.open();
    await client.subscribe(['known', 'other'], () => {});
    await client.psubscribe('pattern:*', () => {});
    let lost!: (report: [unknown, PubSubErrorEvent]) => void;
    const reported = new Promise<[unknown, PubSubErrorEvent]>((resolve) => (lost = resolve));
    client.onPubSubError((error, event) => lost([error, event]));
    expect(await killSubscribers(admin)).toBe(1);
    const [error, event] = await reported;
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(event.source).toBe('lost');
    expect(event.kind).toBeUndefined();
    expect([...event.names].sort()).toEqual(['known', 'other', 'pattern:*']);
  });
});
