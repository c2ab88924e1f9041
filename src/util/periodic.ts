// A task run every interval of a clock's time (timers.ts), with at most one run in flight: a run
// still going when the next is due lets that turn pass. The client's periodic work (the tracking
// connection's health check, the cache meter's report) runs here, so a simulated clock runs it
// in its own time, as every other timer of the client.
import type { Clock } from './clock.js';
import { startTimer, stopTimer, type Timer } from './timers.js';

export class Periodic {
  private timer: Timer | undefined = undefined;
  private running = false;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    /** One run; a promise it returns keeps the next runs off until it settles. */
    private readonly task: () => unknown,
  ) {}

  /** The first run is one interval from now; a started one goes on as it is. */
  start(): void {
    if (this.timer === undefined) this.arm();
  }

  stop(): void {
    stopTimer(this.clock, this.timer);
    this.timer = undefined;
  }

  /** Unref'd: a pending turn alone must not keep the process alive (sockets do that). */
  private arm(): void {
    this.timer = startTimer(this.clock, this.tick, this.intervalMs, true);
  }

  private readonly tick = (): void => {
    this.arm();
    if (this.running) return;
    const run = this.task();
    if (!(run instanceof Promise)) return;
    this.running = true;
    run.then(this.done, this.done);
  };

  private readonly done = (): void => {
    this.running = false;
  };
}
