// A callback every `intervalMs` on a client's clock (timers.ts), for the periodic health checks
// (a failover member's probes, a cache tracking connection's PING). Unref'd like setInterval's
// were: a pending tick alone does not keep the process alive.
import type { Clock } from './clock.js';
import { startTimer, stopTimer, type Timer } from './timers.js';

export class Ticker {
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly tick: () => void,
  ) {
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    stopTimer(this.clock, this.timer);
  }

  private arm(): void {
    this.timer = startTimer(this.clock, this.fire, this.intervalMs, true);
  }

  private readonly fire = (): void => {
    if (this.stopped) return;
    this.arm();
    this.tick();
  };
}
