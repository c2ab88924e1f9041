// The health probes of one failover member (issue 14 "Health", API.md "Failover group"): every
// `interval` a probe (`PING`, or the configured function) runs on the member's probe client, a
// client of its own with its own connections and no circuit breaker, so probes are never checked
// by a data circuit; a probe not done within `timeout` is a failure. A probe still running when
// the next is due delays it: at most one is in flight. While the server announces a maintenance
// window (PROTOCOL.md §5: MIGRATING, FAILING_OVER, MOVING) on the member's data or probe
// connections, which relaxes their command deadlines, a probe has at least the relaxed timeout
// too (`maintenanceRelaxedTimeout`): a planned maintenance must not make the group switch away.
import type { RespireOptions } from '../client/options.js';
import { RespireMaintenanceTimeoutError, RespireTimeoutError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import { Periodic } from '../util/periodic.js';
import { startTimer, stopTimer, type Timer } from '../util/timers.js';
import type { ResolvedHealthCheck } from './options.js';
import { ProbeClient } from './probe-client.js';

export class HealthProber {
  private client: ProbeClient | undefined;
  /** The probe client being opened (a member down at start, or whose client failed to open). */
  private connecting: Promise<void> | undefined;
  /** The client `connecting` opens: close() and destroy() give it up. */
  private opening: ProbeClient | undefined;
  private probes: Periodic | undefined;
  private closed = false;

  constructor(
    private readonly member: string,
    private readonly options: RespireOptions,
    private readonly check: ResolvedHealthCheck,
    /** The member's clock: probes and their timeouts run on it (util/timers.ts). */
    private readonly clock: Clock,
    /** Told each probe's outcome: true when the member answered in time. */
    private readonly onResult: (ok: boolean, error: unknown) => void,
    /** The member's `maintenanceRelaxedTimeout`. */
    private readonly relaxedTimeoutMs: number,
    /** Whether a maintenance window is open on the member's data connections. */
    private readonly dataInMaintenance: () => boolean,
  ) {}

  start(): void {
    this.probes = new Periodic(this.clock, this.check.interval, this.tick);
    this.probes.start();
  }

  close(): Promise<void> {
    this.closed = true;
    this.probes?.stop();
    this.opening?.destroy();
    return this.client?.close().catch(ignore) ?? Promise.resolve();
  }

  destroy(): void {
    this.closed = true;
    this.probes?.stop();
    this.opening?.destroy();
    this.client?.destroy();
  }

  /** One probe; Periodic starts no other while its promise is pending. */
  private readonly tick = (): Promise<void> | undefined => {
    if (this.closed) return undefined;
    return this.withTimeout(this.probe()).then(
      () => this.report(true, undefined),
      (error: unknown) => this.report(false, error),
    );
  };

  private report(ok: boolean, error: unknown): void {
    if (!this.closed) this.onResult(ok, error);
  }

  private async probe(): Promise<void> {
    if (this.client === undefined) await this.open();
    const client = this.client!;
    if (this.check.probe === undefined) await client.ping({ timeout: this.timeoutNow() });
    else await this.check.probe(client, this.member);
  }

  private get inMaintenance(): boolean {
    return this.client?.inMaintenance === true || this.dataInMaintenance();
  }

  /** A probe's deadline now: `timeout`, or at least the relaxed timeout inside a window. */
  private timeoutNow(): number {
    return this.inMaintenance ? Math.max(this.check.timeout, this.relaxedTimeoutMs) : this.check.timeout;
  }

  /**
   * `work`, or a rejection once its deadline passed (its own outcome is then ignored). A window
   * opened while it ran extends the deadline to the relaxed timeout, as for data commands.
   */
  private withTimeout(work: Promise<void>): Promise<void> {
    work.catch(ignore);
    const { clock } = this;
    let timer: Timer | undefined;
    const late = new Promise<void>((_, reject) => {
      const expire = (waitedMs: number): void => {
        const deadlineMs = this.timeoutNow();
        if (waitedMs < deadlineMs) {
          timer = startTimer(clock, () => expire(deadlineMs), deadlineMs - waitedMs, true);
          return;
        }
        reject(this.timeoutError(waitedMs));
      };
      timer = startTimer(clock, () => expire(this.check.timeout), this.check.timeout, true);
    });
    return Promise.race([work, late]).finally(() => stopTimer(clock, timer));
  }

  private timeoutError(timeoutMs: number): RespireTimeoutError {
    const message = `the health probe of ${this.member} took over ${timeoutMs} ms`;
    if (!this.inMaintenance) return new RespireTimeoutError(message, 'response', { timeoutMs });
    return new RespireMaintenanceTimeoutError(`${message}, relaxed during server maintenance`, 'command', {
      timeoutMs,
    });
  }

  /**
   * Opens the probe client; a slow open outlives the probe that started it and serves the next.
   * Reconnects are capped at `interval`, so a recovered member is seen within about one interval.
   */
  private open(): Promise<void> {
    if (this.connecting !== undefined) return this.connecting;
    const client = ProbeClient.unopened({
      ...this.options,
      circuitBreaker: null,
      meter: null,
      retry: { maxAttempts: 1 },
      commandTimeout: this.check.timeout,
      reconnect: { minDelay: Math.min(50, this.check.interval), maxDelay: this.check.interval },
    });
    this.opening = client;
    this.connecting = client
      .connect()
      .then(() => {
        if (this.closed) client.destroy();
        else this.client = client;
      })
      .finally(() => {
        this.opening = undefined;
        this.connecting = undefined;
      });
    return this.connecting;
  }
}

function ignore(): void {}
