// A clock read at most once per synchronous run of code. `performance.now()` costs ~40 ns and
// allocates on Node 20; the pipeline's per-command paths (breaker admission and outcome times)
// would read it once per command. Within one run — a flush of a tick's commands, the replies of one
// socket read — they share a reading; the next run, after a microtask checkpoint, reads anew. The
// circuit breaker works in milliseconds, far coarser than one run lasts.
import type { Clock } from './clock.js';

/** A turn-cached clock; `refresh()` makes the next reading fresh, for callers outside a batch. */
export interface TurnClock extends Clock {
  refresh(): void;
}

export function turnCachedClock(source: Clock): TurnClock {
  let reading = 0;
  let valid = false;
  const invalidate = (): void => {
    valid = false;
  };
  return {
    refresh: invalidate,
    now(): number {
      if (!valid) {
        reading = source.now();
        valid = true;
        queueMicrotask(invalidate);
      }
      return reading;
    },
  };
}
