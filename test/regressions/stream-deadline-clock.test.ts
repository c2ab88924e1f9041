// A streamed value's silence deadline (streams/raw-exchange.ts) ran on the global setTimeout, out
// of reach of the client's clock (util/timers.ts): a simulated clock never fired it, so a silent
// server stalled a getStream forever in simulated time. It now runs through the transport's
// DeadlineTimer, on the client's clock. Real server behind the fault proxy, which goes silent
// (blackhole) once the stream's GET is on its way; the clock's timers are scripted by the test.
import { describe, expect, it } from 'vitest';
import { RespireTimeoutError } from '../../src/index.js';
import type { ClockTimers } from '../../src/util/clock.js';
import { useTestClients } from '../client/support.js';
import { encodeRequest } from '../kit/resp-wire.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { proxied } = useTestClients(server);

describe("a streamed GET's silence deadline", () => {
  it("fires on the client's clock", async () => {
    let now = 0;
    const pending: { callback: () => void; delayMs: number; cleared: boolean }[] = [];
    const timers: ClockTimers = {
      set: (callback, delayMs) => {
        const timer = { callback, delayMs, cleared: false };
        pending.push(timer);
        return timer;
      },
      clear: (handle) => {
        (handle as { cleared: boolean }).cleared = true;
      },
    };
    const { client, proxy } = await proxied({ clock: { now: () => now, timers }, commandTimeout: 0 });
    await client.set('clock:k', 'v');
    // Opens the dedicated connection while the proxy still passes; it goes back to the pool.
    for await (const _ of client.getStream('clock:k')) void _;
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const armed = pending.length;
    const stream = client.getStream('clock:k', { timeout: 50 });
    const failed = new Promise<unknown>((resolve) => stream.once('error', resolve));
    stream.resume();
    await proxy.waitForClientBytes(before + encodeRequest(['GET', 'clock:k']).length);
    const deadlines = pending.slice(armed).filter((timer) => !timer.cleared);
    expect(deadlines.map((timer) => timer.delayMs)).toEqual([50]);
    now = 50;
    for (const timer of deadlines) timer.callback();
    const error = await failed;
    expect(error).toBeInstanceOf(RespireTimeoutError);
    expect((error as RespireTimeoutError).timeoutMs).toBe(50);
  });
});
