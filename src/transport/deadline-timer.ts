// One timer per owner (a connection's reply deadlines, a channel's acquire deadlines), armed at the
// earliest outstanding deadline (STYLE.md "Async, time, randomness"): commands carry absolute
// deadlines and the owner settles every expired one in a single pass when the timer fires, so no
// command ever gets a setTimeout of its own.
import type { Clock } from '../util/clock.js';
import { startTimer, stopTimer, type Timer } from '../util/timers.js';

export class DeadlineTimer {
  private timer: Timer | undefined;
  private armedAt = Number.POSITIVE_INFINITY;

  /**
   * @param onExpire called with the current time when the armed deadline is reached; returns the
   *   next deadline still outstanding, or Infinity for none.
   */
  constructor(
    private readonly clock: Clock,
    private readonly onExpire: (now: number) => number,
  ) {}

  /** Makes sure the timer fires no later than `deadline`. Cheap when an earlier one is armed. */
  arm(deadline: number): void {
    if (deadline >= this.armedAt) return;
    stopTimer(this.clock, this.timer);
    this.armedAt = deadline;
    const delay = Math.max(0, Math.ceil(deadline - this.clock.now()));
    // A pending deadline alone must not keep the process alive; sockets do that.
    this.timer = startTimer(this.clock, this.fire, delay, true);
  }

  cancel(): void {
    stopTimer(this.clock, this.timer);
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const next = this.onExpire(this.clock.now());
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  };
}
