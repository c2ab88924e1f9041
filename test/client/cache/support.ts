// Helpers of the client-side cache tests: waiting until a read is answered from the cache (the
// tracking connection arms in the background), and finding a client's tracking connection on the
// server side.
import type { RespireClient } from '../../../src/index.js';
import type { Clock } from '../../../src/util/clock.js';
import type { FaultProxy } from '../../kit/fault-proxy.js';
import { waitUntil } from '../../kit/wait-until.js';

/** Runs `read` until one run is a cache hit (so its entry is stored); returns that hit's value. */
export async function untilCached<T>(redis: RespireClient, read: () => Promise<T>): Promise<T> {
  let value: T | undefined;
  await waitUntil(
    'a cache hit',
    async () => {
      const before = redis.cacheStats!.hits;
      value = await read();
      return redis.cacheStats!.hits > before || 'not cached yet';
    },
    { timeoutMs: 5000, intervalMs: 10 },
  );
  return value as T;
}

/** Resolves once the cache holds no entry (an invalidation arrived), within `timeoutMs`. */
export function untilEmpty(redis: RespireClient, timeoutMs = 5000): Promise<void> {
  return waitUntil(
    'an empty cache',
    async () => redis.cacheStats!.entries === 0 || `${redis.cacheStats!.entries} entries`,
    { timeoutMs, intervalMs: 5 },
  );
}

/** The ids of the server's connections in BCAST tracking mode (CLIENT LIST flags `t` and `B`). */
export async function trackingClientIds(admin: RespireClient): Promise<string[]> {
  const list = String(await admin.send(['CLIENT', 'LIST']));
  return list
    .split('\n')
    .filter((line) => / flags=\S*t\S*/.test(line) && / flags=\S*B/.test(line))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!);
}

/** The ids of connections named `name` that are not tracking (the data connections). */
export async function dataClientIds(admin: RespireClient, name: string): Promise<string[]> {
  const list = String(await admin.send(['CLIENT', 'LIST']));
  return list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `) && !/ flags=\S*t/.test(line))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!);
}

/**
 * Starts `read` with its reply held `ms` at the proxy (what is sent after it passes at once), and
 * resolves once the server has answered it: the read is in flight, its reply on its way.
 */
export async function heldInFlight<T>(
  proxy: FaultProxy,
  ms: number,
  read: () => Promise<T>,
): Promise<{ reply: Promise<T> }> {
  await proxy.setMode('delay', ms, 'toClient');
  const sentAt = proxy.bytesFromServer;
  const reply = read();
  await proxy.waitForServerBytes(sentAt + 1);
  await proxy.setMode('pass');
  return { reply };
}

/** Caches `k` on `redis`, then kills its tracking connection and waits for the cache to empty. */
export async function cachedThenTrackerKilled(redis: RespireClient, admin: RespireClient): Promise<void> {
  await admin.set('k', 'v');
  await untilCached(redis, () => redis.get('k'));
  const [tracker] = await trackingClientIds(admin);
  await admin.send(['CLIENT', 'KILL', 'ID', tracker!]);
  await untilEmpty(redis);
}

/**
 * A clock that moves only by `advance`, running its timers then, in order: the client's periodic
 * work (health checks, meter reports) and deadlines happen only when a test says.
 */
export function manualClock(): Clock & { advance(ms: number): void } {
  let time = 0;
  const due: { at: number; run: () => void; cancelled: boolean }[] = [];
  return {
    now: () => time,
    timers: {
      set(run, delayMs) {
        const timer = { at: time + delayMs, run, cancelled: false };
        due.push(timer);
        return timer;
      },
      clear(handle) {
        (handle as { cancelled: boolean }).cancelled = true;
      },
    },
    advance(ms) {
      const until = time + ms;
      for (;;) {
        due.sort((a, b) => a.at - b.at);
        const next = due[0];
        if (next === undefined || next.at > until) break;
        due.shift();
        time = next.at;
        if (!next.cancelled) next.run();
      }
      time = until;
    },
  };
}

/**
 * Stops reading the standalone client's tracking connection (its invalidations and its PING's
 * replies wait, as on a slow or lossy path); returns the function that reads it again.
 */
export function pauseTracking(redis: RespireClient): () => void {
  const { router } = redis as unknown as {
    router: { node: { tracker: { connection: { socket: { pause(): void; resume(): void } } } } };
  };
  const socket = router.node.tracker.connection.socket;
  socket.pause();
  return () => socket.resume();
}
