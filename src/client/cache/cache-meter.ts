// Reports the client-side cache's counters to the meter (API.md "Metrics", `respire.cache.*`) in
// batches, once a second of the client's clock and when the client closes: a hit then costs one
// increment, never a meter call (issue 13: the hit path stays allocation-free and fast).
import type { RespireEndpoint } from '../../errors.js';
import type { Clock } from '../../util/clock.js';
import { Periodic } from '../../util/periodic.js';
import type { ClientTelemetry } from '../metrics.js';
import type { ClientSideCache } from './client-side-cache.js';

const REPORT_INTERVAL_MS = 1000;

export class CacheMeter {
  private readonly reported: [number, number, number, number] = [0, 0, 0, 0];
  private readonly reports: Periodic | undefined;

  constructor(
    private readonly cache: ClientSideCache,
    private readonly telemetry: ClientTelemetry,
    private readonly endpoint: () => RespireEndpoint,
    clock: Clock,
  ) {
    if (!telemetry.cacheMetrics) return;
    this.reports = new Periodic(clock, REPORT_INTERVAL_MS, () => this.report());
    this.reports.start();
  }

  /** Reports what changed since the last report. */
  report(): void {
    if (!this.telemetry.cacheMetrics) return;
    const { hits, misses, evictions, invalidations } = this.cache;
    const now: [number, number, number, number] = [hits, misses, evictions, invalidations];
    const last = this.reported;
    const delta: [number, number, number, number] = [
      hits - last[0],
      misses - last[1],
      evictions - last[2],
      invalidations - last[3],
    ];
    this.reported.splice(0, 4, ...now);
    if (delta.some((count) => count !== 0)) this.telemetry.cacheActivity(this.endpoint(), delta);
  }

  /** The client closes: a last report, and no more. */
  stop(): void {
    this.reports?.stop();
    this.report();
  }
}
