import { describe, expect, it, vi } from 'vitest';
import type { ClockTimers } from '../../src/util/clock.js';
import { sleep, startTimer, stopTimer } from '../../src/util/timers.js';

describe('startTimer', () => {
  it("runs on the clock's own timers when it has them, never on the global ones", () => {
    const pending = new Map<object, () => void>();
    const timers: ClockTimers = {
      set: (callback, delayMs) => {
        const handle = { delayMs };
        pending.set(handle, callback);
        return handle;
      },
      clear: (handle) => pending.delete(handle),
    };
    const globalTimeout = vi.spyOn(globalThis, 'setTimeout');
    const fired: string[] = [];
    const kept = startTimer({ now: () => 0, timers }, () => fired.push('kept'), 25);
    const stopped = startTimer({ now: () => 0, timers }, () => fired.push('stopped'), 10, true);
    stopTimer({ now: () => 0, timers }, stopped);
    expect(globalTimeout).not.toHaveBeenCalled();
    globalTimeout.mockRestore();
    expect([...pending.keys()]).toEqual([{ delayMs: 25 }]);
    for (const callback of pending.values()) callback();
    expect(fired).toEqual(['kept']);
    expect(kept).toEqual({ delayMs: 25 });
  });

  it('uses the global timers for a clock that only tells the time', async () => {
    vi.useFakeTimers();
    try {
      let woke = false;
      const done = sleep({ now: () => 0 }, 50).then(() => {
        woke = true;
      });
      await vi.advanceTimersByTimeAsync(49);
      expect(woke).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(woke).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
