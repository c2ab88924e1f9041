// The outage scenario's Respire driver: RespireClient with its defaults (commandTimeout 5 s, …),
// with or without the circuit breaker; in a cluster, `useCluster` with `cluster.addressMap` sending
// the proxied primary's calls through the proxy, and SPUBLISH, whose shard channel has a slot.
// Its fail-fast error is RespireCircuitOpenError.
import { subscribe } from 'node:diagnostics_channel';
import type { RespireCircuitBreakerOptions } from '../../../src/breaker/options.js';
import {
  type CircuitTransitionDiagnostic,
  DiagnosticChannels,
  RespireCircuitOpenError,
  RespireClient,
  RespireTimeoutError,
} from '../../../src/index.js';
import { Outcome } from '../call-log.js';
import type { ContenderTarget } from '../messages.js';
import { type OutageDriver, STREAM_MAXLEN, sameEndpoint } from './driver.js';

export async function connectRespire(
  target: ContenderTarget,
  circuitBreaker: RespireCircuitBreakerOptions | null,
): Promise<OutageDriver> {
  const redis =
    target.kind === 'standalone'
      ? await RespireClient.connect({ endpoints: [{ host: target.host, port: target.port }], circuitBreaker })
      : await RespireClient.connect({
          endpoints: target.seeds,
          useCluster: true,
          circuitBreaker,
          cluster: {
            addressMap: (endpoint) =>
              sameEndpoint(endpoint, target.proxied.from) ? target.proxied.to : endpoint,
          },
        });
  const trim = { MAXLEN: STREAM_MAXLEN, APPROXIMATE: true };
  return {
    publish:
      target.kind === 'standalone'
        ? (channel, message) => redis.publish(channel, message)
        : (channel, message) => redis.spublish(channel, message),
    xadd: (stream, message) => redis.xadd(stream, '*', { event: message }, trim),
    classify(error) {
      if (error instanceof RespireCircuitOpenError) return Outcome.RejectedFast;
      if (error instanceof RespireTimeoutError) return Outcome.TimedOut;
      return Outcome.Failed;
    },
    // Every circuit of the process's one client (a cluster has one per node) reports here.
    onCircuitOpen:
      circuitBreaker === null
        ? undefined
        : (listener) => {
            subscribe(DiagnosticChannels.circuitTransition, (message) => {
              if ((message as CircuitTransitionDiagnostic).to === 'open') listener();
            });
          },
  };
}
