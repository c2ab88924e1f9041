// Benchmark suite `client-cache` (issue 13): GETs answered by the client-side cache, Respire's
// against node-redis's (RESP3 `clientSideCache`, LRU, the same `maxEntries`), each client in a
// worker process of its own on the runner's redis-server. A pass is 1,000 GETs issued at once:
// on a hot set of 100 keys only, or with every eleventh GET on a key of a cold set of 100,000 (a
// miss each time, as the cold keys cycle through far more than `maxEntries`), for a hit ratio of
// 90.9% once warm (each worker logs the ratio it measured after its warm-up). `CPU µs/op` of the
// hot case is the hit path's cost.
import type { CachedDriver } from '../clients/cached.js';
import { checkedPasses } from '../clients/checked-passes.js';
import { flatString, flatten } from '../flat-strings.js';
import { roundTripMeasureOptions } from '../measure.js';
import type { CasePlan, IsolatedSuite, PreparedContender } from '../suite.js';

const RESPIRE = 'respire';
const NODE_REDIS = 'node-redis';
const CALLS = 1000;
const HOT_KEYS = 100;
const COLD_KEYS = 100_000;
const MAX_ENTRIES = 10_000;
const VALUE = flatString(16, 'v');

const DRIVERS: Record<string, (url: string) => Promise<CachedDriver>> = {
  [RESPIRE]: async (url) =>
    (await import('../clients/cached-respire.js')).connectCachedRespire(url, MAX_ENTRIES),
  [NODE_REDIS]: async (url) =>
    (await import('../clients/cached-node-redis.js')).connectCachedNodeRedis(url, MAX_ENTRIES),
};

interface CacheCase {
  name: string;
  /** Every `coldEvery`-th GET reads a cold key; 0 = hot keys only. */
  coldEvery: number;
}

const CASES: readonly CacheCase[] = [
  { name: 'cached GET 16 B, hot set, Promise.all of 1000', coldEvery: 0 },
  { name: 'cached GET 16 B, 90% hits, Promise.all of 1000', coldEvery: 11 },
];

/**
 * Each contender's own keys: the workers of a case are alive at once (bench/measure.ts rounds), so
 * one's writes while it prepares would otherwise invalidate the other's cache.
 */
function caseKeys(contender: string): { hot: string[]; cold: (i: number) => string } {
  const prefix = `bench:cache:${contender.replace(/\W/g, '')}`;
  return {
    hot: Array.from({ length: HOT_KEYS }, (_, i) => flatten(`${prefix}:hot:${i}`)),
    cold: (i) => flatten(`${prefix}:cold:${i}`),
  };
}

export const clientCacheSuite: IsolatedSuite = {
  name: 'client-cache',
  plan(context): CasePlan[] {
    return CASES.map((cacheCase) => ({
      name: cacheCase.name,
      contenders: [RESPIRE, NODE_REDIS],
      measure: roundTripMeasureOptions(context.quick),
    }));
  },
  async prepare(caseName, contender, context): Promise<PreparedContender> {
    const cacheCase = CASES.find((candidate) => candidate.name === caseName);
    if (cacheCase === undefined) throw new Error(`client-cache has no case ${caseName}`);
    const connect = DRIVERS[contender];
    if (connect === undefined) throw new Error(`client-cache has no contender ${contender}`);
    const driver = await connect(await context.redisUrl());
    const coldCount = context.quick ? 10_000 : COLD_KEYS;
    const { hot: hotKeys, cold: coldKey } = caseKeys(contender);
    await Promise.all(hotKeys.map((key) => driver.set(key, VALUE)));
    if (cacheCase.coldEvery !== 0) {
      for (let start = 0; start < coldCount; start += 1000) {
        await Promise.all(Array.from({ length: 1000 }, (_, i) => driver.set(coldKey(start + i), VALUE)));
      }
    }
    let cold = 0;
    const promises: Promise<unknown>[] = new Array(CALLS);
    const pass = () => {
      for (let i = 0; i < CALLS; i++) {
        const isCold = cacheCase.coldEvery !== 0 && i % cacheCase.coldEvery === cacheCase.coldEvery - 1;
        promises[i] = driver.get(isCold ? coldKey(cold++ % coldCount) : hotKeys[i % HOT_KEYS]!);
      }
      return Promise.all(promises);
    };
    // Warm-up: until the tracking connection is armed and a pass of hot keys is all hits, so that
    // the ratio logged is the steady state's.
    for (let attempt = 0; attempt < 500; attempt++) {
      driver.baseline();
      for (let i = 0; i < CALLS; i++) promises[i] = driver.get(hotKeys[i % HOT_KEYS]!);
      await Promise.all(promises);
      if (driver.hitRatio() === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (let i = 0; i < 5; i++) await pass();
    driver.baseline();
    return checkedPasses({
      contender,
      caseName,
      calls: CALLS,
      expected: VALUE,
      pass,
      close: async () => {
        context.log(`client-cache: ${contender}, ${caseName}: hit ratio ${driver.hitRatio().toFixed(3)}`);
        await driver.close();
      },
    });
  },
};

export default clientCacheSuite;
