// The health probes of one failover member (issue 14 "Health", API.md "Failover group"): every
// `interval` a probe (`PING`, or the configured function) runs on the member's probe client, a
// client of its own with its own connections and no circuit breaker, so probes are never checked
// by a data circuit; a probe not done within `timeout` is a failure. A probe still running when
// the next is due delays it: at most one is in flight.
import type { RespireOptions } from '../client/options.js';
import { RespireTimeoutError } from '../errors.js';
import { RespireClient } from '../respire-client.js';
import type { Clock } from '../util/clock.js';
import { Periodic } from '../util/periodic.js';
import { startTimer, stopTimer, type Timer } from '../util/timers.js';
import type { ResolvedHealthCheck } from './options.js';

export class HealthProber {
  private client: RespireClient | undefined;
  /** The probe client being opened (a member down at start, or whose client failed to open). */
  private connecting: Promise<void> | undefined;
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
  ) {}

  start(): void {
    this.probes = new Periodic(this.clock, this.check.interval, this.tick);
    this.probes.start();
  }

  close(): Promise<void> {
    this.closed = true;
    this.probes?.stop();
    return this.client?.close().catch(ignore) ?? Promise.resolve();
  }

  destroy(): void {
    this.closed = true;
    this.probes?.stop();
    this.client?.destroy();
  }

  /** One probe; Periodic starts no other while its promise is pending. */
  private readonly tick = (): Promise<void> | undefined => {
    if (this.closed) return undefined;
    return withTimeout(this.probe(), this.check.timeout, this.member, this.clock).then(
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
    if (this.check.probe === undefined) await client.ping();
    else await this.check.probe(client, this.member);
  }

  /**
   * Opens the probe client; a slow open outlives the probe that started it and serves the next.
   * Reconnects are capped at `interval`, so a recovered member is seen within about one interval.
   */
  private open(): Promise<void> {
    this.connecting ??= RespireClient.connect({
      ...this.options,
      circuitBreaker: null,
      meter: null,
      retry: { maxAttempts: 1 },
      commandTimeout: this.check.timeout,
      reconnect: { minDelay: Math.min(50, this.check.interval), maxDelay: this.check.interval },
    })
      .then((client) => {
        if (this.closed) client.destroy();
        else this.client = client;
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }
}

/** `work`, or a rejection once `timeoutMs` passed (the work's own outcome is then ignored). */
function withTimeout(work: Promise<void>, timeoutMs: number, member: string, clock: Clock): Promise<void> {
  work.catch(ignore);
  let timer: Timer | undefined;
  const late = new Promise<void>((_, reject) => {
    timer = startTimer(
      clock,
      () =>
        reject(
          new RespireTimeoutError(`the health probe of ${member} took over ${timeoutMs} ms`, 'response', {
            timeoutMs,
          }),
        ),
      timeoutMs,
      true,
    );
  });
  return Promise.race([work, late]).finally(() => stopTimer(clock, timer));
}

function ignore(): void {}
