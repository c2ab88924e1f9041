// The failover group's metrics (issue 14 "Health", seed 000 "Circuit metrics": the health-probe
// circuit reports only respire.failover.*), in the `resiliency` group of the group's `meter`:
// - `respire.failover.switches` {switch}: each switch, by `respire.failover.from`, `.to`, `.reason`;
// - `respire.failover.probe.failures` {probe}: each failed probe, by `respire.failover.member`;
// - `respire.failover.active_member`: an observable gauge, 1 for the active member and 0 for the
//   others, by `respire.failover.member`, when the meter has `createObservableGauge` (as an
//   OpenTelemetry Meter does).
// Tags name members only: never endpoints' credentials, keys or messages.

import type { ResolvedMetricOptions } from '../client/metrics.js';
import { type RespireCounter, type RespireMeter, RespireMetricGroups } from '../client/metrics.js';
import { LIBRARY_TAG, type RespireMetricAttributes, Tag } from '../client/metrics-tags.js';

/** The part of an OpenTelemetry `ObservableResult` the gauge uses. */
export interface RespireObservableResult {
  observe(value: number, attributes?: RespireMetricAttributes): void;
}

/** A meter that may also make observable gauges (OpenTelemetry's `Meter` does). */
interface GaugeMeter extends RespireMeter {
  createObservableGauge?(
    name: string,
    options?: { description?: string; unit?: string },
  ): { addCallback(callback: (result: RespireObservableResult) => void): void };
}

/**
 * Why the group switched: the active member turned `unhealthy`, a higher-weight member recovered
 * for `failbackDelay` (`failback`), or `switchTo` was called (`manual`).
 */
export type SwitchReason = 'unhealthy' | 'failback' | 'manual';

const BASE = { [Tag.dbSystem]: 'redis', [Tag.library]: LIBRARY_TAG } as const;

export class FailoverTelemetry {
  private switches: RespireCounter | undefined;
  private probeFailures: RespireCounter | undefined;
  private readonly meter: GaugeMeter | null;

  constructor(options: ResolvedMetricOptions, members: readonly string[], active: () => string) {
    this.meter = options.metricGroups.has(RespireMetricGroups.Resiliency) ? options.meter : null;
    const meter = this.meter;
    if (meter === null) return;
    guarded(() => {
      this.switches = meter.createCounter('respire.failover.switches', {
        unit: '{switch}',
        description:
          'Switches of a failover group to another member, by members left and entered and reason.',
      });
      this.probeFailures = meter.createCounter('respire.failover.probe.failures', {
        unit: '{probe}',
        description: 'Health probes of a failover member that failed or timed out.',
      });
      meter
        .createObservableGauge?.('respire.failover.active_member', {
          description: 'Whether a failover member is the active one (1) or not (0).',
        })
        .addCallback((result) => {
          const current = active();
          for (const name of members) {
            result.observe(name === current ? 1 : 0, { ...BASE, 'respire.failover.member': name });
          }
        });
    });
  }

  switched(from: string, to: string, reason: SwitchReason): void {
    const counter = this.switches;
    if (counter === undefined) return;
    const tags = {
      ...BASE,
      'respire.failover.from': from,
      'respire.failover.to': to,
      'respire.failover.reason': reason,
    };
    guarded(() => counter.add(1, tags));
  }

  probeFailed(member: string): void {
    const counter = this.probeFailures;
    if (counter === undefined) return;
    guarded(() => counter.add(1, { ...BASE, 'respire.failover.member': member }));
  }
}

/** A meter that throws cannot break the group: the measurement is dropped with a warning. */
function guarded(work: () => void): void {
  try {
    work();
  } catch (error) {
    process.emitWarning(`the meter given to Respire threw; measurement dropped: ${String(error)}`, {
      code: 'RESPIRE_METER_ERROR',
    });
  }
}
