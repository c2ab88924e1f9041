// Regression: when the server refused a restored SUBSCRIBE (one of its channels revoked), the
// permitted names were subscribed again one by one through the ordinary send queue, bounded by
// `maxPendingCommands` and the circuit. While the rest of the restore still waited for the socket
// to drain, all but a queue's worth of them were turned away at once ("no room in the send
// queue"), and a restore command failing so was ignored: those names stayed marked subscribed,
// were not, and nothing was reported. The one-by-one retries are now part of the restore, written
// ahead of anything queued and exempt from the queue bound, as the restore itself is.
import { describe, expect, it } from 'vitest';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextSubscriberReconnect } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

describe.each([3, 2] as const)('one-by-one restore behind a draining socket (RESP%i)', (protocol) => {
  it('subscribes every permitted name again', async () => {
    const admin = await clients.open();
    const username = `retried${protocol}`;
    await admin.send([
      'ACL',
      'SETUSER',
      username,
      'reset',
      'on',
      '>pw',
      '~*',
      '&keep:*',
      '&revoked',
      '+@all',
    ]);
    const { proxy, client } = await clients.proxied(
      {
        protocol,
        username,
        password: 'pw',
        reconnect: () => 10,
        maxPendingCommands: 4,
        commandTimeout: 30_000,
      },
      { maxQueuedBytes: 16 * 1024 },
    );
    const reports: unknown[] = [];
    client.onPubSubError((error) => reports.push(error));
    const kept = Array.from({ length: 100 }, (_, i) => `keep:${i}`);
    await client.subscribe(['revoked', ...kept], () => {});
    // Restored after the channels, one SSUBSCRIBE each: megabytes that drain slowly.
    const shards = Array.from({ length: 20_000 }, (_, i) => `keep:shard:${i}:`.padEnd(300, 'x'));
    await client.ssubscribe(shards, () => {});
    await proxy.setMode('delay', 10, 'toServer');
    const reconnected = nextSubscriberReconnect();
    await admin.send(['ACL', 'SETUSER', username, 'resetchannels', '&keep:*']);
    await reconnected;
    // Written after the restore and its one-by-one retries, so confirmed after them.
    await client.subscribe('keep:marker', () => {});
    const counts = (await admin.send(['PUBSUB', 'NUMSUB', ...kept])) as (string | number)[];
    const missing = kept.filter((_, i) => counts[2 * i + 1] !== 1);
    expect(missing).toEqual([]);
    expect((await admin.pubsubShardChannels('keep:shard:*')).length).toBe(20_000);
    expect(reports).toEqual([expect.objectContaining({ code: 'NOPERM' })]);
  }, 30_000);
});
