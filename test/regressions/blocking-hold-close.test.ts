// A blocking command held because its endpoint is down (node/blocking-hold.ts, set by Sentinel):
// when the client closes, it failed with the connect error that held it, as if the endpoint had
// refused it, when the client is what ended it. It now fails as every other command the close
// ends: RespireConnectionError "client is closed", written: false. And the hold's deadline ran on
// the global setTimeout, out of reach of the client's clock (util/timers.ts): a simulation never
// saw it fire. Real server behind the fault proxy; the proxy refuses new connections, so the
// shared connection stays up while the BLPOP's dedicated connection cannot be opened.
import { describe, expect, it, vi } from 'vitest';
import { ClientTelemetry } from '../../src/client/metrics.js';
import { BlockingHold } from '../../src/client/node/blocking-hold.js';
import { EndpointNode } from '../../src/client/node/endpoint-node.js';
import { resolveOptions } from '../../src/client/options.js';
import { RespireConnectionError } from '../../src/index.js';
import { Command, CommandFlags } from '../../src/transport/command.js';
import type { ClockTimers } from '../../src/util/clock.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { startProxy } = useTestClients(server);

describe('a blocking command held while its endpoint is down', () => {
  it('fails with "client is closed" when the node closes, not with the connect error', async () => {
    const proxy = await startProxy();
    const options = resolveOptions({
      endpoints: [{ host: proxy.host, port: proxy.port }],
      circuitBreaker: null,
      connectTimeout: 1_000,
    });
    const node = new EndpointNode({
      options,
      telemetry: ClientTelemetry.disabled,
      errorSink: undefined,
      circuits: undefined,
      holdBlockingWhileDown: true,
    });
    await node.start();
    const holding = vi.spyOn(BlockingHold.prototype, 'hold');
    await proxy.setMode('refuse');
    const command = new Command(['BLPOP', 'hold:list', '0'], CommandFlags.Blocking, undefined, undefined, 0);
    node.send(command as Command<unknown>);
    await vi.waitFor(() => expect(holding).toHaveReturnedWith(true), { timeout: 5_000 });
    expect(command.settled).toBe(false);
    const closing = node.close();
    const { error } = await outcome(command.promise);
    await closing;
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as RespireConnectionError).message).toMatch(/client is closed/);
    expect((error as RespireConnectionError).written).toBe(false);
  });

  it("waits out its acquire deadline on the client's clock", async () => {
    let now = 0;
    const pending = new Map<object, { callback: () => void; delayMs: number }>();
    const timers: ClockTimers = {
      set: (callback, delayMs) => {
        const handle = {};
        pending.set(handle, { callback, delayMs });
        return handle;
      },
      clear: (handle) => pending.delete(handle),
    };
    const hold = new BlockingHold({
      acquireTimeout: 100,
      clock: { now: () => now, timers },
      endpoint: { host: server.host, port: server.port },
      retry: () => {},
    });
    const command = new Command(['BLPOP', 'hold:list', '0'], CommandFlags.Blocking, undefined, undefined, 0);
    const refused = new RespireConnectionError('refused', { written: false });
    expect(hold.hold(command as Command<unknown>, refused)).toBe(true);
    expect([...pending.values()].map((timer) => timer.delayMs)).toEqual([100]);
    now = 100;
    for (const timer of pending.values()) timer.callback();
    const { error } = await outcome(command.promise);
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as RespireConnectionError).message).toBe(
      `no connection to ${server.host}:${server.port}: refused`,
    );
    expect((error as RespireConnectionError).cause).toBe(refused);
  });
});
