// The health-probe circuit of one failover member (issue 14 "Health"): `failuresToSwitch`
// consecutive probe failures mark it unhealthy, `successesToRecover` consecutive successes mark it
// healthy again. It is fed only by the member's probes, never by its commands, so a member's own
// circuit breaker does not change probing or failback (seed 000 "Limits").

export class ProbeCircuit {
  private failures = 0;
  private successes = 0;
  private healthyNow: boolean;
  /** When it last became healthy (clock ms); failback waits `failbackDelay` from here. */
  private since: number;

  constructor(
    private readonly failuresToSwitch: number,
    private readonly successesToRecover: number,
    healthy: boolean,
    now: number,
  ) {
    this.healthyNow = healthy;
    this.since = now;
  }

  get healthy(): boolean {
    return this.healthyNow;
  }

  /** Clock ms since which it has been healthy (meaningless while unhealthy). */
  get healthySince(): number {
    return this.since;
  }

  /** Healthy from `now` without a probe: the member's client connected (at the group's start). */
  markHealthy(now: number): void {
    if (this.healthyNow) return;
    this.healthyNow = true;
    this.failures = 0;
    this.successes = 0;
    this.since = now;
  }

  /** Records one probe; returns true when that changed `healthy`. */
  record(ok: boolean, now: number): boolean {
    if (ok) {
      this.failures = 0;
      if (this.healthyNow || ++this.successes < this.successesToRecover) return false;
      this.healthyNow = true;
      this.since = now;
      return true;
    }
    this.successes = 0;
    if (!this.healthyNow || ++this.failures < this.failuresToSwitch) return false;
    this.healthyNow = false;
    return true;
  }
}
