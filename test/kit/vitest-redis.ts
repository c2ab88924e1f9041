// Vitest glue for the kit's servers, clusters and sentinel groups: one per test file (or describe
// block), started in beforeAll and stopped in afterAll, with logs printed when a test fails.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type RedisCluster, type RedisClusterOptions, startRedisCluster } from './redis-cluster.js';
import { type RedisSentinelGroup, type RedisSentinelOptions, startRedisSentinel } from './redis-sentinel.js';
import {
  type RedisExit,
  type RedisServer,
  type RedisServerOptions,
  startRedisServer,
} from './redis-server.js';
import type { TlsCertificate } from './tls-certificate.js';

/**
 * Registers hooks that start a server before the tests of the current scope and stop it after.
 * The returned handle forwards to that server; reading it outside a test or hook throws.
 */
export function useRedisServer(options: RedisServerOptions = {}): RedisServer {
  const handle = new LazyRedisServer();
  beforeAll(async () => {
    handle.target = await startRedisServer(options);
  });
  afterAll(async () => {
    await handle.target?.stop();
    handle.target = undefined;
  });
  afterEach((context) => {
    if (context.task.result?.state === 'fail' && handle.target) {
      console.error(`redis-server ${handle.target.url} log:\n${handle.target.log()}`);
    }
  });
  return handle;
}

class LazyRedisServer implements RedisServer {
  target: RedisServer | undefined;

  private get server(): RedisServer {
    if (this.target === undefined) throw new Error('the redis-server is not running (used outside a test?)');
    return this.target;
  }

  get host(): string {
    return this.server.host;
  }
  get port(): number {
    return this.server.port;
  }
  get busPort(): number {
    return this.server.busPort;
  }
  get url(): string {
    return this.server.url;
  }
  get pid(): number {
    return this.server.pid;
  }
  get dir(): string {
    return this.server.dir;
  }
  get tls(): TlsCertificate | undefined {
    return this.server.tls;
  }
  stop(): Promise<void> {
    return this.server.stop();
  }
  kill(signal?: NodeJS.Signals): void {
    this.server.kill(signal);
  }
  waitForExit(): Promise<RedisExit> {
    return this.server.waitForExit();
  }
  restart(): Promise<void> {
    return this.server.restart();
  }
  log(): string {
    return this.server.log();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.server.stop();
  }
}

/**
 * Registers hooks that start one Redis Cluster before the tests of the current scope (share it per
 * file: it takes seconds) and release it after: in a test run it may be handed on to the next file
 * (cluster-pool.ts). Reading the handle outside a test or hook throws.
 */
export function useRedisCluster(options: RedisClusterOptions = {}): RedisCluster {
  return useStarted(
    () => startRedisCluster(options),
    (cluster) => cluster.release(),
    'the Redis Cluster',
  );
}

export interface SentinelGroupHandle extends RedisSentinelGroup {
  /**
   * Runs `repair` (a `settle()`, a `restartDataNode()`) before the next test of the scope, not now:
   * after the last test the group just stops. A failover's aftermath is slow to settle (the
   * sentinels turn a demoted or restarted old primary into a replica only after four hello periods,
   * ~8 s), and a file's last test that waited for it held the machine's topology slot for nothing.
   */
  beforeNextTest(repair: () => Promise<void>): void;
}

/** Above the kit's own bounded waits (a minute each): a stalled repair names its step. */
const REPAIR_TIMEOUT_MS = 3 * 60_000;

/**
 * Registers hooks that start a primary, its replicas and sentinels before the tests of the current
 * scope and stop them after. Reading the handle outside a test or hook throws.
 */
export function useRedisSentinel(options: RedisSentinelOptions = {}): SentinelGroupHandle {
  const repairs: (() => Promise<void>)[] = [];
  const group = useStarted(
    () => startRedisSentinel(options),
    (started) => started.stop(),
    'the sentinel group',
  );
  beforeEach(async () => {
    for (const repair of repairs.splice(0)) await repair();
  }, REPAIR_TIMEOUT_MS);
  const beforeNextTest = (repair: () => Promise<void>): void => void repairs.push(repair);
  return new Proxy(group, {
    get: (target, property) =>
      property === 'beforeNextTest' ? beforeNextTest : Reflect.get(target, property),
  }) as SentinelGroupHandle;
}

const TOPOLOGY_START_TIMEOUT_MS = 10 * 60_000;

/** beforeAll starts, afterAll finishes, a failed test prints every process's log. */
function useStarted<T extends { logs(): string }>(
  start: () => Promise<T>,
  finish: (target: T) => Promise<void>,
  what: string,
): T {
  let target: T | undefined;
  // Longer than the hook timeout: the start may first wait for another worker's cluster or group
  // to stop (topology-gate.ts); the start itself is bounded by the kit's own waits.
  beforeAll(async () => {
    target = await start();
  }, TOPOLOGY_START_TIMEOUT_MS);
  afterAll(async () => {
    if (target) await finish(target);
    target = undefined;
  });
  afterEach((context) => {
    if (context.task.result?.state === 'fail' && target) console.error(`${what}, logs:\n${target.logs()}`);
  });
  return lazyHandle(() => target, what);
}

/**
 * A stand-in that forwards every property to the object `current()` returns once a hook has
 * started it (methods bound to it), so tests can hold the handle at module level.
 */
function lazyHandle<T extends object>(current: () => T | undefined, what: string): T {
  const running = (): T => {
    const target = current();
    if (target === undefined) throw new Error(`${what} is not running (used outside a test?)`);
    return target;
  };
  return new Proxy({} as T, {
    get(_, property) {
      const target = running();
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has: (_, property) => Reflect.has(running(), property),
  });
}
