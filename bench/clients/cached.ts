// The `client-cache` suite's drivers (cached-respire.ts, cached-node-redis.ts): Respire's
// `clientSideCache` and node-redis's `clientSideCache` (RESP3, LRU), each with the same entry
// bound, each imported only inside its own worker process.
import type { ClientDriver } from './driver.js';

export interface CachedDriver extends ClientDriver {
  /** Hits over lookups since the last `baseline()` (or the start), by the client's own count. */
  hitRatio(): number;
  /** Counts from now on: after the warm-up, so the ratio is the steady state's. */
  baseline(): void;
}

/** hitRatio and baseline over a client's cumulative hit and miss counters. */
export function ratioSince(
  counts: () => { hits: number; misses: number },
): Pick<CachedDriver, 'hitRatio' | 'baseline'> {
  let base = { hits: 0, misses: 0 };
  return {
    hitRatio() {
      const { hits, misses } = counts();
      const h = hits - base.hits;
      return h / (h + misses - base.misses);
    },
    baseline() {
      base = counts();
    },
  };
}
