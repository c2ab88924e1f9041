// A client clock for tests of which timers run on the client's clock (util/timers.ts): real time
// and real timers, except that timers at least `parkFrom` ms long are parked, for the test to look
// at and fire, so a timer the client started on the global clock instead is never among them.
import type { Clock } from '../../src/util/clock.js';

export interface ParkedTimer {
  readonly delayMs: number;
  fire(): void;
}

export interface ParkedClock extends Clock {
  /** The parked timers not yet fired or cleared, in the order they were started. */
  readonly parked: ParkedTimer[];
}

export function parkedClock(parkFrom: number): ParkedClock {
  const parked: (ParkedTimer & { cleared: boolean })[] = [];
  return {
    now: () => performance.now(),
    get parked() {
      return parked.filter((timer) => !timer.cleared);
    },
    timers: {
      set(callback, delayMs) {
        if (delayMs < parkFrom) return { real: setTimeout(callback, delayMs) };
        const timer = {
          delayMs,
          cleared: false,
          fire() {
            if (timer.cleared) return;
            timer.cleared = true;
            callback();
          },
        };
        parked.push(timer);
        return timer;
      },
      clear(handle) {
        const { real } = handle as { real?: ReturnType<typeof setTimeout> };
        if (real !== undefined) clearTimeout(real);
        else (handle as { cleared: boolean }).cleared = true;
      },
    },
  };
}
