// Waiting between discovery rounds (issue 12: "on a mismatch back off and ask again"; PROTOCOL.md
// §3.4: "wait a few hundred ms"): bounded exponential with jitter from the injected random source,
// on an unref'd timer of the client's clock (util/timers.ts: a simulation runs it in its own time;
// no timer keeps the process alive), cut short by a hint or by close.
import type { Clock } from '../util/clock.js';
import type { RandomSource } from '../util/random.js';
import { startTimer, stopTimer } from '../util/timers.js';

/** First delay ceiling and the largest one, ms. */
export const BACKOFF_MIN_MS = 100;
export const BACKOFF_MAX_MS = 2000;

/**
 * The delay before retry `attempt` (1 = first): half the ceiling fixed, half drawn, so a retry never
 * comes at once (the sentinels need a moment to change their answer) and clients spread out.
 */
export function backoffDelay(attempt: number, random: RandomSource): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt - 1, 20));
  return Math.round(ceiling / 2 + (random.random() * ceiling) / 2);
}

/**
 * Pauses that a hint or close can cut short. Each pause holds one entry until it ends, so however
 * long sentinels stay away, nothing accumulates.
 */
export class Wakeup {
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /** Resolves after `delayMs` or at the next `wake()`, whichever comes first. Never rejects. */
  pause(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        stopTimer(this.clock, timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = startTimer(this.clock, done, delayMs, true);
      this.sleepers.add(done);
    });
  }

  /** Ends every pause now. */
  wake(): void {
    for (const done of [...this.sleepers]) done();
  }
}
