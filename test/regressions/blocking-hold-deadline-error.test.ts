// A blocking command held while its endpoint is down (node/blocking-hold.ts: Sentinel nodes and
// failover members) failed at its acquire deadline with the connect error that held it, while a
// command queued on the same node for the same outage fails with "no connection to <endpoint>:
// <why>" (transport/channel-errors.ts). Both were never written; the caller now gets the same
// class and message shape from either, with the connect error as its cause. Real server behind
// the fault proxy, which refuses connections, so neither can be had.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientTelemetry } from '../../src/client/metrics.js';
import { BlockingHold } from '../../src/client/node/blocking-hold.js';
import { EndpointNode } from '../../src/client/node/endpoint-node.js';
import { resolveOptions } from '../../src/client/options.js';
import { RespireConnectionError } from '../../src/index.js';
import { Command, CommandFlags } from '../../src/transport/command.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { startProxy } = useTestClients(server);
const nodes: EndpointNode[] = [];
afterEach(() => {
  for (const node of nodes.splice(0)) node.destroy();
  vi.restoreAllMocks();
});

describe('a blocking command held past its acquire deadline', () => {
  it('fails as a command queued for a connection does: "no connection to …", written: false', async () => {
    const proxy = await startProxy();
    const node = new EndpointNode({
      options: resolveOptions({
        endpoints: [{ host: proxy.host, port: proxy.port }],
        circuitBreaker: null,
        connectTimeout: 1_000,
        acquireTimeout: 300,
        reconnect: { minDelay: 50, maxDelay: 50 },
      }),
      telemetry: ClientTelemetry.disabled,
      errorSink: undefined,
      circuits: undefined,
      holdBlockingWhileDown: true,
    });
    nodes.push(node);
    await node.start();
    const holding = vi.spyOn(BlockingHold.prototype, 'hold');
    await proxy.setMode('refuse');
    await proxy.closeAllConnections();
    await vi.waitFor(() => expect(node.main.current).toBeUndefined(), { timeout: 5_000 });

    const queued = new Command(['GET', 'hold:key'], CommandFlags.None, undefined, undefined, 0);
    const blocking = new Command(['BLPOP', 'hold:list', '0'], CommandFlags.Blocking, undefined, undefined, 0);
    node.send(queued as Command<unknown>);
    node.send(blocking as Command<unknown>);
    await vi.waitFor(() => expect(holding).toHaveReturnedWith(true), { timeout: 5_000 });
    const [queuedError, blockingError] = [
      (await outcome(queued.promise)).error as RespireConnectionError,
      (await outcome(blocking.promise)).error as RespireConnectionError,
    ];
    const shape = new RegExp(`^no connection to ${proxy.host}:${proxy.port}: `);
    expect(queuedError).toBeInstanceOf(RespireConnectionError);
    expect(queuedError.message).toMatch(shape);
    expect(blockingError.constructor).toBe(queuedError.constructor);
    expect(blockingError.message).toMatch(shape);
    expect(blockingError.written).toBe(false);
    expect(blockingError.endpoint).toEqual(queuedError.endpoint);
    expect(blockingError.cause).toBeInstanceOf(Error);
  });
});
