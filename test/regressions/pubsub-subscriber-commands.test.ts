// Regressions (issue 19 "Also"): subscriber commands published no `respire:command:*` diagnostics;
// a subscribe in flight when its connection dropped failed instead of being sent again on the next
// connection; close() with `commandTimeout: 0` never settled with a SUBSCRIBE unconfirmed on a
// connection cut off from the server.
import { channel } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { type CommandDiagnostic, DiagnosticChannels } from '../../src/index.js';
import { outcomeWithin, useTestClients, wireLength } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { recorder } from './pubsub-support.js';

const server = useRedisServer();
const clients = useTestClients(server);

describe.each([3, 2] as const)('subscriber commands (RESP%i)', (protocol) => {
  it('publish respire:command:start and end', async () => {
    const client = await clients.open({ protocol });
    const seen: string[] = [];
    const onStart = (message: unknown) => seen.push(`start ${(message as CommandDiagnostic).command}`);
    const onEnd = (message: unknown) => seen.push(`end ${(message as CommandDiagnostic).command}`);
    channel(DiagnosticChannels.commandStart).subscribe(onStart);
    channel(DiagnosticChannels.commandEnd).subscribe(onEnd);
    try {
      await client.psubscribe('traced:*', () => {});
      await client.punsubscribe('traced:*');
    } finally {
      channel(DiagnosticChannels.commandStart).unsubscribe(onStart);
      channel(DiagnosticChannels.commandEnd).unsubscribe(onEnd);
    }
    expect(seen).toEqual(['start PSUBSCRIBE', 'end PSUBSCRIBE', 'start PUNSUBSCRIBE', 'end PUNSUBSCRIBE']);
  });

  it('sends a subscribe in flight again when its connection drops', async () => {
    const { proxy, client } = await clients.proxied({ protocol, reconnect: () => 10 });
    const admin = await clients.open();
    await client.subscribe('warm', () => {});
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const heard = recorder('arrived');
    const subscribing = client.subscribe('in-flight', heard.listener);
    await proxy.waitForClientBytes(before + wireLength(['SUBSCRIBE', 'in-flight']));
    await proxy.setMode('reset');
    await proxy.setMode('pass');
    await subscribing;
    expect(await admin.publish('in-flight', 'arrived')).toBe(1);
    await heard.received;
    expect(await admin.publish('warm', 'restored')).toBe(1);
  });

  it('close() settles with commandTimeout 0 and a SUBSCRIBE cut off from the server', async () => {
    const { proxy, client } = await clients.proxied({ protocol, commandTimeout: 0, connectTimeout: 300 });
    await client.subscribe('warm', () => {});
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const subscribing = client.subscribe('cut-off', () => {});
    subscribing.catch(() => {});
    await proxy.waitForClientBytes(before + wireLength(['SUBSCRIBE', 'cut-off']));
    const closing = client.close();
    expect(await outcomeWithin(closing, 3_000)).not.toBe('pending');
    expect(await outcomeWithin(subscribing, 100)).toMatchObject({
      error: { name: 'RespireConnectionError' },
    });
  });
});
