// The outage scenario's Respire driver: RespireClient with its defaults (commandTimeout 5 s, …),
// with or without the circuit breaker. Its fail-fast error is RespireCircuitOpenError.
import type { RespireCircuitBreakerOptions } from '../../../src/breaker/options.js';
import { RespireCircuitOpenError, RespireClient, RespireTimeoutError } from '../../../src/index.js';
import { Outcome } from '../call-log.js';
import { type OutageDriver, STREAM_MAXLEN } from './driver.js';

export async function connectRespire(
  host: string,
  port: number,
  circuitBreaker: RespireCircuitBreakerOptions | null,
): Promise<OutageDriver> {
  const redis = await RespireClient.connect({ endpoints: [{ host, port }], circuitBreaker });
  const trim = { MAXLEN: STREAM_MAXLEN, APPROXIMATE: true };
  const circuit = redis.circuit;
  return {
    publish: (channel, message) => redis.publish(channel, message),
    xadd: (stream, message) => redis.xadd(stream, '*', { event: message }, trim),
    classify(error) {
      if (error instanceof RespireCircuitOpenError) return Outcome.RejectedFast;
      if (error instanceof RespireTimeoutError) return Outcome.TimedOut;
      return Outcome.Failed;
    },
    onCircuitOpen:
      circuit === undefined
        ? undefined
        : (listener) => {
            circuit.onTransition((_from, to) => {
              if (to === 'open') listener();
            });
          },
  };
}
