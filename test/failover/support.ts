// Set-up shared by the failover group tests: a group over real servers (or fault proxies in front
// of them) with short probe settings, closed after each test, and a wait for the next switch.
import { afterEach } from 'vitest';
import {
  RespireClient,
  RespireFailoverGroup,
  type RespireFailoverGroupOptions,
  type RespireOptions,
  type SwitchReason,
} from '../../src/index.js';
import type { ProxiedCluster } from '../cluster/cluster-support.js';
import type { RedisCluster } from '../kit/redis-cluster.js';
import { waitUntil } from '../kit/wait-until.js';

/** Short enough for tests, long enough that a loaded machine's PING does not look like a failure. */
export const HEALTH = { interval: 100, timeout: 400, failuresToSwitch: 3, successesToRecover: 2 } as const;

/** Slack for a machine shared with other test runs (timers late, processes slow to die). */
export const MARGIN_MS = 2_500;

export interface Switch {
  from: string;
  to: string;
  reason: SwitchReason;
  /** performance.now() when it was told. */
  at: number;
}

export interface GroupKit {
  /** A group of `east` (weight 2) and `west` (weight 1) on these ports, closed after the test. */
  connect(
    ports: { east: number; west: number },
    options?: Partial<RespireFailoverGroupOptions> & { member?: Partial<RespireOptions> },
  ): Promise<RespireFailoverGroup>;
}

export function useGroups(): GroupKit {
  const groups: RespireFailoverGroup[] = [];
  afterEach(() => {
    for (const group of groups.splice(0)) group.destroy();
  });
  return {
    async connect(ports, options = {}) {
      const { member = {}, ...groupOptions } = options;
      const memberOptions = (port: number): RespireOptions => ({
        endpoints: [{ host: '127.0.0.1', port }],
        reconnect: { minDelay: 10, maxDelay: 200 },
        ...member,
      });
      const group = await RespireFailoverGroup.connect({
        members: [
          { name: 'east', weight: 2, options: memberOptions(ports.east) },
          { name: 'west', weight: 1, options: memberOptions(ports.west) },
        ],
        healthCheck: HEALTH,
        failbackDelay: 1_000,
        ...groupOptions,
      });
      groups.push(group);
      return group;
    },
  };
}

/** Every switch of `group`, as it is told, and a promise of the next one. */
export function recordSwitches(group: RespireFailoverGroup): {
  readonly all: Switch[];
  next(): Promise<Switch>;
} {
  const all: Switch[] = [];
  let waiters: ((change: Switch) => void)[] = [];
  group.onSwitch((from, to, reason) => {
    const change = { from, to, reason, at: performance.now() };
    all.push(change);
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake(change);
  });
  return {
    all,
    next: () => new Promise((resolve) => waiters.push(resolve)),
  };
}

/** A plain client of the server on `port` for `body`, closed after it (to look at a member's data). */
export async function withClient<T>(port: number, body: (client: RespireClient) => Promise<T>): Promise<T> {
  const client = await RespireClient.connect({ endpoints: [{ host: '127.0.0.1', port }] });
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

/** Waits until the group client reads `expected` at `key` (another client's write lands soon). */
export function readsValue(group: RespireFailoverGroup, key: string, expected: string): Promise<void> {
  return waitUntil(
    `${key} to read ${expected}`,
    async () => {
      const value = await group.client.get(key);
      return value === expected ? true : String(value);
    },
    { timeoutMs: 3_000 },
  );
}

/**
 * A group of `cluster` (weight 2: a Cluster member reaching `cluster`'s nodes through `proxied`)
 * and `single` (weight 1: the standalone server at `standalone`); `member` adds to the Cluster
 * member's options. The caller closes it.
 */
export function connectClusterGroup(
  cluster: RedisCluster,
  proxied: ProxiedCluster,
  standalone: { host: string; port: number },
  member: Partial<RespireOptions> = {},
): Promise<RespireFailoverGroup> {
  return RespireFailoverGroup.connect({
    members: [
      {
        name: 'cluster',
        weight: 2,
        options: {
          useCluster: true,
          endpoints: cluster.primaries.map((node) => proxied.dialled(node)),
          cluster: { addressMap: proxied.addressMap, refreshInterval: 0 },
          ...member,
        },
      },
      {
        name: 'single',
        weight: 1,
        options: { endpoints: [{ host: standalone.host, port: standalone.port }] },
      },
    ],
    healthCheck: HEALTH,
    failbackDelay: 600_000,
  });
}
