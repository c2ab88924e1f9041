// docs/examples/circuit-breaker.ts (circuit-breaker.md): a cache read through a circuit breaker, falling back to the source of
// truth while Redis is down, and a log line on every circuit transition.
import {
  type RespireCircuitBreakerOptions,
  RespireCircuitOpenError,
  RespireClient,
  RespireConnectionError,
  RespireTimeoutError,
} from '../../src/index.js';

/** For about 200 reads a second: a verdict from 20 failures at least, within 10 s. */
export const CACHE_BREAKER: RespireCircuitBreakerOptions = {
  failureRateThreshold: 0.5,
  minimumFailureCount: 20,
  samplingWindow: 10_000,
  maximumSampleCount: 2048,
  openDuration: 5_000,
  halfOpenProbeCount: 2,
};

export function connectCache(url: string, circuitBreaker = CACHE_BREAKER): Promise<RespireClient> {
  return RespireClient.connect({
    url,
    // A cache answers in a millisecond; waiting longer than this is worse than a miss.
    commandTimeout: 250,
    acquireTimeout: 250,
    circuitBreaker,
  });
}

export interface Read {
  value: string;
  from: 'cache' | 'source';
  /** Why the cache was skipped, when it was. */
  reason?: string;
}

/** The cached value, or `load()`'s when the key is missing or Redis is in trouble. */
export async function readThrough(
  redis: RespireClient,
  key: string,
  load: () => Promise<string>,
): Promise<Read> {
  try {
    const cached = await redis.get(key);
    if (cached !== null) return { value: cached, from: 'cache' };
  } catch (error) {
    // Open circuit: nothing was sent, and it costs microseconds. Timeouts and lost connections
    // are what open it. Anything else (WRONGTYPE, NOPERM) is a bug to surface, not to hide.
    if (
      error instanceof RespireCircuitOpenError ||
      error instanceof RespireTimeoutError ||
      error instanceof RespireConnectionError
    ) {
      return { value: await load(), from: 'source', reason: error.name };
    }
    throw error;
  }
  const value = await load();
  // Filling the cache is best effort: a failure here must not fail the read.
  await redis.set(key, value, { EX: 300 }).catch(() => {});
  return { value, from: 'source' };
}

/** Logs every transition of the client's circuit; returns the function that stops it. */
export function logTransitions(redis: RespireClient, log: (line: string) => void): () => void {
  const circuit = redis.circuit;
  if (circuit === undefined) return () => {};
  return circuit.onTransition((from, to) => log(`redis circuit ${from} -> ${to}`));
}
