import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/util/clock.js';
import { Periodic } from '../../src/util/periodic.js';

/** A clock whose one pending timer the test fires by hand. */
function handClock(): Clock & { fire(): void; pending(): number } {
  const pending = new Set<{ run: () => void; delayMs: number }>();
  return {
    now: () => 0,
    timers: {
      set: (run, delayMs) => {
        const timer = { run, delayMs };
        pending.add(timer);
        return timer;
      },
      clear: (handle) => pending.delete(handle as { run: () => void; delayMs: number }),
    },
    fire() {
      const [timer] = pending;
      expect(timer?.delayMs).toBe(100);
      pending.delete(timer!);
      timer!.run();
    },
    pending: () => pending.size,
  };
}

describe('Periodic', () => {
  it('runs every interval on the clock, one run in flight at most, until stopped', async () => {
    const clock = handClock();
    let runs = 0;
    let finish: () => void = () => {};
    const periodic = new Periodic(clock, 100, () => {
      runs++;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    periodic.start();
    periodic.start();
    expect(clock.pending()).toBe(1);
    clock.fire();
    expect(runs).toBe(1);
    // The first run is still going: this turn passes.
    clock.fire();
    expect(runs).toBe(1);
    finish();
    await Promise.resolve();
    clock.fire();
    expect(runs).toBe(2);
    periodic.stop();
    expect(clock.pending()).toBe(0);
  });

  it('runs a task that returns no promise on every turn', () => {
    const clock = handClock();
    let runs = 0;
    new Periodic(clock, 100, () => runs++).start();
    clock.fire();
    clock.fire();
    expect(runs).toBe(2);
  });
});
