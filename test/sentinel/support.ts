// Set-up shared by the sentinel discovery tests: a watcher for a kit sentinel group (closed after
// the test), a loopback port nothing listens on, and waits on the watcher's own events with a
// bound that says what was awaited.
import { afterEach } from 'vitest';
import type { RespireEndpoint, RespireError } from '../../src/errors.js';
import {
  type ResolvedSentinelOptions,
  SentinelWatcher,
  validateSentinelOptions,
} from '../../src/sentinel/index.js';
import type { SentinelWatcherOptions } from '../../src/sentinel/sentinel-watcher.js';
import { systemClock } from '../../src/util/clock.js';
import { findFreePort, LOOPBACK } from '../kit/free-port.js';
import type { RedisSentinelGroup } from '../kit/redis-sentinel.js';
import { seededRandom } from '../kit/seeded-random.js';

const open: SentinelWatcher[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((watcher) => watcher.close()));
});

export interface WatcherOverrides extends Partial<Omit<SentinelWatcherOptions, 'sentinel'>> {
  sentinel?: Partial<Parameters<typeof validateSentinelOptions>[0] & object>;
}

/** Errors the watcher reported in the background, per watcher started by `watch`. */
export const reported = new Map<SentinelWatcher, RespireError[]>();

/** What `sentinelOptions` and `watch` read of a group: a real one, or a stand-in naming fake sentinels. */
export type WatchedGroup = Pick<RedisSentinelGroup, 'serviceName' | 'sentinels'>;

/** The resolved `sentinel` option for `group`, with `overrides` on top. */
export function sentinelOptions(group: WatchedGroup, overrides: object = {}): ResolvedSentinelOptions {
  return validateSentinelOptions({
    serviceName: group.serviceName,
    endpoints: group.sentinels.map(({ host, port }) => `${host}:${port}`),
    ...overrides,
  });
}

/** A watcher of `group`, closed after the test. */
export async function watch(group: WatchedGroup, overrides: WatcherOverrides = {}): Promise<SentinelWatcher> {
  const errors: RespireError[] = [];
  const { sentinel, ...rest } = overrides;
  const random = seededRandom();
  const watcher = await SentinelWatcher.start({
    sentinel: sentinelOptions(group, sentinel),
    data: { tls: undefined, connectTimeout: 2000 },
    clock: systemClock,
    random: { random: () => random.next() },
    onError: (error) => errors.push(error),
    ...rest,
  });
  open.push(watcher);
  reported.set(watcher, errors);
  return watcher;
}

/** A loopback port nothing listens on (taken from the kernel and released). */
export async function closedPort(): Promise<RespireEndpoint> {
  return { host: LOOPBACK, port: await findFreePort() };
}

/** Resolves with the next primary change, or rejects after `timeoutMs`. */
export function nextPrimaryChange(
  watcher: SentinelWatcher,
  timeoutMs: number,
): Promise<{ from: RespireEndpoint; to: RespireEndpoint; reason: string }> {
  return within(timeoutMs, 'a primary change', (done) =>
    watcher.onPrimaryChange((from, to, reason) => done({ from, to, reason })),
  );
}

/** Resolves once the replica list satisfies `check` (checked at once, then at each change). */
export function replicasWhere(
  watcher: SentinelWatcher,
  check: (replicas: readonly RespireEndpoint[]) => boolean,
  timeoutMs: number,
): Promise<readonly RespireEndpoint[]> {
  if (check(watcher.replicas())) return Promise.resolve(watcher.replicas());
  return within(timeoutMs, 'the replica list to change as expected', (done) =>
    watcher.onReplicasChange((replicas) => {
      if (check(replicas)) done(replicas);
    }),
  );
}

function within<T>(
  timeoutMs: number,
  what: string,
  listen: (done: (value: T) => void) => () => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const stop = listen((value) => {
      clearTimeout(timer);
      stop();
      resolve(value);
    });
  });
}

export function ports(endpoints: readonly RespireEndpoint[]): number[] {
  return endpoints.map((endpoint) => endpoint.port).sort((a, b) => a - b);
}
