// The simulated Sentinel world (issue 16): a primary and two replicas sharing one keyspace
// (synchronous replication: a failover loses no acknowledged write, so the invariants may demand
// every one), answering ROLE and refusing writes with READONLY while they are replicas; and three
// sentinels answering SENTINEL GET-MASTER-ADDR-BY-NAME, SENTINELS and REPLICAS from their own view
// and publishing +sdown, +switch-master and +convert-to-slave to their subscribers. A failover
// (drawn from the seed) kills the primary or demotes it, promotes a replica, and lets each sentinel
// learn of it after a delay of its own.
import type { RespireEndpoint } from '../../src/errors.js';
import type { SeededRandom } from '../kit/seeded-random.js';
import type { SimNetwork } from './network.js';
import { type ExecutedCommand, type ServerFaults, SimRedis } from './redis.js';
import type { Scheduler } from './scheduler.js';
import { type NodeHooks, newStore, type Session } from './session.js';
import type { Reply } from './wire.js';

export interface SimNode {
  readonly endpoint: RespireEndpoint;
  readonly name: string;
  readonly server: SimRedis;
}

export interface DataNode extends SimNode {
  role: 'primary' | 'replica';
  up: boolean;
}

export interface SentinelNode extends SimNode {
  /** The primary this sentinel believes in. */
  primary: DataNode;
}

/** Commands a replica refuses with READONLY (BLPOP writes: it pops). */
const WRITES = new Set(['SET', 'INCR', 'INCRBY', 'DEL', 'RPUSH', 'XADD', 'BLPOP']);
const READONLY = "READONLY You can't write against a read only replica.";

export class SimSentinels {
  readonly service = 'sim-service';
  readonly data: DataNode[] = [];
  readonly sentinels: SentinelNode[] = [];
  readonly log: ExecutedCommand[] = [];

  constructor(
    readonly scheduler: Scheduler,
    faults: ServerFaults,
    readonly network: SimNetwork,
  ) {
    const store = newStore();
    const bus = new Set<Session>();
    for (let i = 0; i < 3; i++) {
      const endpoint = { host: `sim-data-${i}`, port: 6379 };
      const node = {
        endpoint,
        name: `${endpoint.host}:6379`,
        role: i === 0 ? 'primary' : 'replica',
        up: true,
      };
      const server = new SimRedis(scheduler, faults, {
        store,
        bus,
        log: this.log,
        hooks: this.dataHooks(node as DataNode),
      });
      this.data.push(Object.assign(node, { server }) as DataNode);
      network.listen(endpoint, server);
    }
    for (let i = 0; i < 3; i++) {
      const endpoint = { host: `sim-sentinel-${i}`, port: 26379 };
      const node = { endpoint, name: `${endpoint.host}:26379`, primary: this.data[0]! };
      const server = new SimRedis(scheduler, faults, { hooks: this.sentinelHooks(node as SentinelNode) });
      this.sentinels.push(Object.assign(node, { server }) as SentinelNode);
      network.listen(endpoint, server);
    }
  }

  primary(): DataNode | undefined {
    return this.data.find((node) => node.role === 'primary' && node.up);
  }

  /** Every sentinel publishes `message` on `channel` to its subscribers. */
  announce(sentinel: SentinelNode, channel: string, message: string): void {
    this.scheduler.trace(`${sentinel.name} publishes ${channel} ${message}`);
    sentinel.server.publish(channel, message);
  }

  private dataHooks(node: DataNode): NodeHooks {
    return {
      hello: () => ({ mode: 'standalone', role: node.role === 'primary' ? 'master' : 'replica' }),
      refuse: (session, name) => {
        if (node.role === 'primary') return undefined;
        if (name === 'EXEC' && (session.multi ?? []).some((queued) => WRITES.has(queued[0]!.toUpperCase())))
          return { error: `EXECABORT Transaction discarded because of: ${READONLY}` };
        return WRITES.has(name) ? { error: READONLY } : undefined;
      },
      command: (_session, name) => (name === 'ROLE' ? this.role(node) : undefined),
      after: () => {},
    };
  }

  private role(node: DataNode): Reply {
    if (node.role === 'primary') {
      const replicas = this.data.filter((other) => other.role === 'replica' && other.up);
      return [
        'master',
        0,
        replicas.map((replica) => [replica.endpoint.host, String(replica.endpoint.port), '0']),
      ];
    }
    const primary = this.primary() ?? this.data.find((other) => other.role === 'primary')!;
    return ['slave', primary.endpoint.host, primary.endpoint.port, 'connected', 0];
  }

  private sentinelHooks(sentinel: SentinelNode): NodeHooks {
    return {
      hello: () => ({ mode: 'sentinel', role: 'sentinel' }),
      refuse: () => undefined,
      command: (_session, name, args) =>
        name === 'SENTINEL' ? this.sentinelCommand(sentinel, args) : undefined,
      after: () => {},
    };
  }

  private sentinelCommand(sentinel: SentinelNode, args: readonly string[]): Reply {
    const sub = args[1]?.toUpperCase();
    const known = args[2] === this.service;
    if (sub === 'GET-MASTER-ADDR-BY-NAME') {
      const { host, port } = sentinel.primary.endpoint;
      return known ? [host, String(port)] : null;
    }
    if (!known && (sub === 'SENTINELS' || sub === 'REPLICAS' || sub === 'SLAVES'))
      return { error: 'ERR No such master with that name' };
    if (sub === 'SENTINELS') {
      return this.sentinels
        .filter((other) => other !== sentinel)
        .map((other) => instance(other.endpoint, 'sentinel'));
    }
    if (sub === 'REPLICAS' || sub === 'SLAVES') {
      return this.data
        .filter((node) => node !== sentinel.primary)
        .map((node) => instance(node.endpoint, node.up ? 'slave' : 's_down,slave'));
    }
    return { error: `ERR unknown subcommand '${args[1]}'` };
  }
}

function instance(endpoint: RespireEndpoint, flags: string): Reply {
  return {
    map: [
      ['name', `${endpoint.host}:${endpoint.port}`],
      ['ip', endpoint.host],
      ['port', String(endpoint.port)],
      ['flags', flags],
    ],
  };
}

export interface SentinelFailover {
  at: number;
  how: 'die' | 'demote';
  /** Which replica (an index among them) is promoted. */
  pick: number;
  /** How long after the primary dies (or after the promotion, when demoted) the next step comes. */
  delayMs: number;
  /** Each sentinel's delay in learning of the promotion. */
  lagsMs: number[];
  /** A dead primary comes back as a replica this long after the promotion, if it does. */
  backAfterMs: number | undefined;
}

export function drawSentinelFaults(
  random: SeededRandom,
  horizonMs: number,
): { failovers: SentinelFailover[] } {
  const failovers: SentinelFailover[] = [];
  for (let n = random.chance(0.2) ? 0 : random.int(1, 2); n > 0; n--) {
    failovers.push({
      at: random.int(0, horizonMs),
      how: random.chance(0.5) ? 'die' : 'demote',
      pick: random.int(0, 1),
      delayMs: random.int(0, 1500),
      lagsMs: [0, 1, 2].map(() => random.int(0, 500)),
      backAfterMs: random.chance(0.5) ? random.int(100, 3000) : undefined,
    });
  }
  return { failovers };
}

export function armSentinelFaults(
  world: SimSentinels,
  faults: { failovers: SentinelFailover[] },
  origin: number,
): void {
  for (const failover of faults.failovers) {
    world.scheduler.at(origin + failover.at, 'io', 'sentinel failover', () => failOver(world, failover));
  }
}

function failOver(world: SimSentinels, fault: SentinelFailover): void {
  const { scheduler, network } = world;
  const old = world.primary();
  const replicas = world.data.filter((node) => node.role === 'replica' && node.up);
  if (old === undefined || replicas.length === 0) return;
  const chosen = replicas[fault.pick % replicas.length]!;
  const switchTo = (): void => {
    chosen.role = 'primary';
    scheduler.trace(`${chosen.name} promoted`);
    world.sentinels.forEach((sentinel, i) => {
      scheduler.after(fault.lagsMs[i]!, 'sentinel learns', () => {
        const from = sentinel.primary.endpoint;
        sentinel.primary = chosen;
        const { host, port } = chosen.endpoint;
        world.announce(
          sentinel,
          '+switch-master',
          `${world.service} ${from.host} ${from.port} ${host} ${port}`,
        );
      });
    });
  };
  const demote = (): void => {
    old.role = 'replica';
    scheduler.trace(`${old.name} is a replica`);
    // Redis unblocks blocked clients when a primary becomes a replica.
    old.server.refuseBlocked(() => ({
      error: 'UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)',
    }));
  };
  if (fault.how === 'demote') {
    // Promoted first, demoted a moment later: both take writes meanwhile, into the one keyspace.
    switchTo();
    scheduler.after(fault.delayMs, 'demotion', demote);
    return;
  }
  old.up = false;
  network.unlisten(old.endpoint);
  scheduler.trace(`${old.name} dies`);
  for (const link of network.open(old.name)) link.reset('node died');
  for (const sentinel of world.sentinels) {
    world.announce(sentinel, '+sdown', `master ${world.service} ${old.endpoint.host} ${old.endpoint.port}`);
  }
  scheduler.after(fault.delayMs, 'promotion', () => {
    old.role = 'replica';
    switchTo();
    if (fault.backAfterMs === undefined) return;
    scheduler.after(fault.backAfterMs, 'node back', () => {
      old.up = true;
      network.listen(old.endpoint, old.server);
      const { host, port } = old.endpoint;
      for (const sentinel of world.sentinels) {
        world.announce(
          sentinel,
          '+convert-to-slave',
          `slave ${host}:${port} ${host} ${port} @ ${world.service}`,
        );
      }
    });
  });
}
