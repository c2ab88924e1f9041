// docs/examples/observability.ts (observability.md): Respire's counters through the OpenTelemetry SDK's meter, and a
// `node:diagnostics_channel` subscriber that logs failed commands and circuit transitions.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  type CircuitTransitionDiagnostic,
  type CommandDiagnostic,
  DiagnosticChannels,
  RespireClient,
  RespireMetricGroups,
} from '../../src/index.js';

/**
 * A reader you collect from by hand. In production use an exporter's reader instead (Prometheus,
 * OTLP with a PeriodicExportingMetricReader): the MeterProvider wiring is the same.
 */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export async function main(url: string) {
  const reader = new PullReader();
  const provider = new MeterProvider({ readers: [reader] });

  const log: string[] = [];
  const onCommandError = (message: unknown) => {
    const { command, errorType, durationMs, endpoint } = message as CommandDiagnostic;
    log.push(`${command} to ${endpoint.host} failed (${errorType}) after ${durationMs.toFixed(1)} ms`);
  };
  const onTransition = (message: unknown) => {
    const { from, to, endpoint } = message as CircuitTransitionDiagnostic;
    log.push(`circuit of ${endpoint.host}:${endpoint.port}: ${from} -> ${to}`);
  };
  subscribe(DiagnosticChannels.commandError, onCommandError);
  subscribe(DiagnosticChannels.circuitTransition, onTransition);
  try {
    await using redis = await RespireClient.connect({
      url,
      meter: provider.getMeter('respire'),
      metricGroups: [RespireMetricGroups.Resiliency, RespireMetricGroups.Commands],
      circuitBreaker: { openDuration: 5_000 },
    });
    await redis.set('plain', 'text');
    await redis.lpush('plain', 'x').catch(() => {}); // WRONGTYPE: a failed command

    const { resourceMetrics } = await reader.collect();
    const counters = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .map((metric) => ({
        name: metric.descriptor.name,
        points: metric.dataPoints.map((point) => ({ value: point.value, attributes: point.attributes })),
      }));
    return { log, counters };
  } finally {
    unsubscribe(DiagnosticChannels.commandError, onCommandError);
    unsubscribe(DiagnosticChannels.circuitTransition, onTransition);
    await provider.shutdown();
  }
}
