// Regressions (issue 19 #3, #13): a failed subscribe's clean-up removed the listener by name, so
// it also removed a later subscription of the same name whose subscribe() had resolved; and a
// listener added during a delivery received the message being delivered.
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { recorder } from './pubsub-support.js';

const server = useRedisServer({
  aclUsers: [{ name: 'limited', password: 'secret', rules: ['~*', '&allowed:*', '+@all'] }],
});
const clients = useTestClients(server);

describe.each([3, 2] as const)('pub/sub listeners (RESP%i)', (protocol) => {
  it('a failed subscribe takes back only the entry it created', async () => {
    const client = await clients.open({ protocol, username: 'limited', password: 'secret' });
    const admin = await clients.open();
    const heard = recorder('kept');
    const failed = client.subscribe(['allowed:x', 'forbidden'], heard.listener);
    const unsubscribed = client.unsubscribe('allowed:x', heard.listener);
    const again = client.subscribe('allowed:x', heard.listener);
    await expect(failed).rejects.toBeInstanceOf(RespireServerError);
    await unsubscribed;
    await again;
    // Written after anything the failed subscribe's clean-up sent.
    await client.subscribe('allowed:marker', () => {});
    expect(await admin.publish('allowed:x', 'kept')).toBe(1);
    await heard.received;
  });

  it('a listener added during a delivery hears only later messages', async () => {
    const client = await clients.open({ protocol });
    const admin = await clients.open();
    const calls: string[] = [];
    const late = recorder('two');
    let added: Promise<void> | undefined;
    let noticeAdded!: () => void;
    const adding = new Promise<void>((resolve) => (noticeAdded = resolve));
    await client.subscribe('during', (message) => {
      calls.push(`first:${message}`);
      if (added !== undefined) return;
      added = client.subscribe('during', (m) => {
        calls.push(`late:${m}`);
        late.listener(m, 'during');
      });
      noticeAdded();
    });
    expect(await admin.publish('during', 'one')).toBe(1);
    await adding;
    await added;
    expect(await admin.publish('during', 'two')).toBe(1);
    await late.received;
    expect(calls).toEqual(['first:one', 'first:two', 'late:two']);
  });
});
