// Regression (review of issue 16's simulation seam): two client timers still started on the global
// setTimeout, so on a simulated clock (test/sim) they ran in real time, or never: a blocking
// command held while its endpoint is down (blocking-hold.ts) and the half-time wait of a MOVING
// with no endpoint (handoff.ts). Every client timer must start on the client's clock (timers.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BlockingHold } from '../../src/client/node/blocking-hold.js';
import { RespireConnectionError } from '../../src/errors.js';
import { Command } from '../../src/transport/command.js';
import { type HandoffChannel, handOff } from '../../src/transport/maintenance/handoff.js';
import type { Clock } from '../../src/util/clock.js';

/** A clock whose timers run only when the test fires them. */
function simulatedClock(): { clock: Clock; delays: number[]; fireAll: () => void } {
  const pending = new Map<object, () => void>();
  const delays: number[] = [];
  const clock: Clock = {
    now: () => 0,
    timers: {
      set: (callback, delayMs) => {
        const handle = {};
        delays.push(delayMs);
        pending.set(handle, callback);
        return handle;
      },
      clear: (handle) => pending.delete(handle),
    },
  };
  const fireAll = () => {
    const callbacks = [...pending.values()];
    pending.clear();
    for (const callback of callbacks) callback();
  };
  return { clock, delays, fireAll };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('client timers on a simulated clock', () => {
  it("holds a blocking command under its acquire deadline on the client's clock", async () => {
    const { clock, delays, fireAll } = simulatedClock();
    const globalTimeout = vi.spyOn(globalThis, 'setTimeout');
    const hold = new BlockingHold({ acquireTimeout: 250, clock, retry: () => {} });
    const command = new Command<unknown>(['BLPOP', 'list', '0'], 0, undefined, undefined, 0);
    const down = new RespireConnectionError('refused', { written: false });
    expect(hold.hold(command, down)).toBe(true);
    expect(globalTimeout).not.toHaveBeenCalled();
    expect(delays).toEqual([250]);
    fireAll();
    await expect(command.promise).rejects.toBe(down);
  });

  it("waits half a MOVING's announced time on the client's clock when it names no endpoint", async () => {
    const { clock, delays, fireAll } = simulatedClock();
    const globalTimeout = vi.spyOn(globalThis, 'setTimeout');
    const channel: HandoffChannel = {
      endpoint: { host: 'configured', port: 6379 },
      current: undefined,
      pauseWrites: () => {},
      replaceConnection: async () => false,
    };
    const done = handOff(channel, { kind: 'moving', seq: 1, timeS: 10, to: null }, clock);
    expect(globalTimeout).not.toHaveBeenCalled();
    expect(delays).toEqual([5000]);
    fireAll();
    await done;
  });
});
