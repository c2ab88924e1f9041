// Regression (code review): close() must settle. Two ways it did not: the QUIT that close() sends has no
// reply deadline (channel.ts close → connection.ts quit), and a (P|S)SUBSCRIBE confirmed by a
// push frame leaves the inflight queue without waking whenIdle() (connection.ts
// confirmSubscription). destroy() could not rescue the first: the channel was already 'closed'.
import { describe, expect, it } from 'vitest';
import { outcomeWithin, useTestClients, wireLength } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

describe('close() when the server stops answering', () => {
  it('settles within the command timeout (QUIT has a reply deadline)', async () => {
    const { proxy, client } = await clients.proxied({ commandTimeout: 200 });
    expect(await client.ping()).toBe('PONG');
    await proxy.setMode('blackhole');
    const closing = client.close();
    // commandTimeout is 200 ms; 5x that is plenty for a deadline to have fired.
    expect(await outcomeWithin(closing, 1_000)).not.toBe('pending');
  });

  it('destroy() ends a close() that is waiting for the QUIT reply', async () => {
    const { proxy, client } = await clients.proxied({ commandTimeout: 5_000 });
    expect(await client.ping()).toBe('PONG');
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const closing = client.close();
    await proxy.waitForClientBytes(before + wireLength(['QUIT']));
    client.destroy();
    expect(await outcomeWithin(closing, 500)).not.toBe('pending');
    // destroy() must also have closed the socket the QUIT went out on. The black hole holds the
    // client's end of stream like any other bytes; once healed, the proxy sees the close.
    await proxy.setMode('pass');
    await proxy.waitUntil((p) => p.connections === 0, 2_000);
    expect(proxy.connections).toBe(0);
  });
});

describe.each([3, 2] as const)('close() right after subscribe() (RESP%i)', (protocol) => {
  it('resolves once the subscription was confirmed', async () => {
    const client = await clients.open({ protocol });
    const subscribed = client.subscribe('review:close-after-subscribe', () => {});
    const closing = client.close();
    await subscribed;
    expect(await outcomeWithin(closing, 1_000)).not.toBe('pending');
  });

  it('resolves after a second subscribe() that was in flight when close() began', async () => {
    const client = await clients.open({ protocol });
    await client.subscribe('review:first', () => {});
    const second = client.subscribe('review:second', () => {});
    const closing = client.close();
    await second;
    expect(await outcomeWithin(closing, 1_000)).not.toBe('pending');
  });
});
