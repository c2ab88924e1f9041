// The simulated Redis Cluster (issue 16): shards of one primary and one replica, each shard's nodes
// sharing one keyspace (synchronous replication: a failover loses no acknowledged write, so the
// invariants may demand every one), slot ownership, and what a node answers about it: CLUSTER
// SHARDS (or, in some runs, only CLUSTER SLOTS), MOVED for a slot it does not serve, ASK, TRYAGAIN
// and ASKING while a slot migrates, READONLY reads on replicas. Faults (cluster-faults.ts) migrate
// a slot or fail a primary over; every node sees the same map at once (no gossip delay).
import type { RespireEndpoint } from '../../src/errors.js';
import type { Redirected } from './invariants.js';
import type { SimNetwork } from './network.js';
import { type ExecutedCommand, type ServerFaults, SimRedis } from './redis.js';
import type { Scheduler } from './scheduler.js';
import { type NodeHooks, newStore, type Session, type Store } from './session.js';
import { keysOf, READS, SLOTS, slotOf } from './slot.js';
import { OK, type Reply } from './wire.js';

export interface ClusterNode {
  readonly endpoint: RespireEndpoint;
  /** `host:port`. */
  readonly name: string;
  readonly id: string;
  readonly shard: number;
  role: 'primary' | 'replica';
  /** False while the node is dead (connections refused). */
  up: boolean;
  readonly server: SimRedis;
}

export interface Migration {
  readonly slot: number;
  readonly from: number;
  readonly to: number;
}

export class SimCluster {
  readonly nodes: ClusterNode[] = [];
  readonly log: ExecutedCommand[] = [];
  /** Each command refused with a redirect (an EXEC's: its queued commands'), and when. */
  readonly redirected: Redirected[] = [];
  readonly stores: Store[] = [];
  /** The shard owning each slot. */
  readonly owner = new Uint8Array(SLOTS);
  migration: Migration | undefined;
  private readonly bus = new Set<Session>();

  constructor(
    readonly scheduler: Scheduler,
    faults: ServerFaults,
    readonly network: SimNetwork,
    shards: number,
    /** Nodes answer only CLUSTER SLOTS, as servers before 7.0 do. */
    private readonly slotsOnly: boolean,
  ) {
    for (let shard = 0; shard < shards; shard++) {
      this.stores.push(newStore());
      const first = Math.floor((shard * SLOTS) / shards);
      this.owner.fill(shard, first, Math.floor(((shard + 1) * SLOTS) / shards));
      for (const role of ['primary', 'replica'] as const) {
        const index = this.nodes.length;
        const endpoint = { host: `sim-node-${index}`, port: 7000 + index };
        const node: ClusterNode = {
          endpoint,
          name: `${endpoint.host}:${endpoint.port}`,
          id: (index + 1).toString(16).padStart(40, '0'),
          shard,
          role,
          up: true,
          server: undefined as unknown as SimRedis,
        };
        const shared = { store: this.stores[shard]!, bus: this.bus, log: this.log, hooks: this.hooks(node) };
        (node as { server: SimRedis }).server = new SimRedis(scheduler, faults, shared);
        network.listen(endpoint, node.server);
        this.nodes.push(node);
      }
    }
  }

  primaryOf(shard: number): ClusterNode | undefined {
    return this.nodes.find((node) => node.shard === shard && node.role === 'primary');
  }

  /** The error that sends a command for `slot` to the primary owning it. */
  moved(slot: number): Reply {
    const primary = this.primaryOf(this.owner[slot]!)!;
    return { error: `MOVED ${slot} ${primary.name}` };
  }

  /** Blocked commands on a node that no longer serves their slot get MOVED (Redis does so). */
  redirectBlocked(): void {
    for (const node of this.nodes) {
      node.server.refuseBlocked((args) => {
        const key = keysOf(args[0]!.toUpperCase(), args)[0];
        if (key === undefined) return undefined;
        const slot = slotOf(key);
        return node.role === 'primary' && node.shard === this.owner[slot] ? undefined : this.moved(slot);
      });
    }
  }

  private hooks(node: ClusterNode): NodeHooks {
    return {
      hello: () => ({ mode: 'cluster', role: node.role === 'primary' ? 'master' : 'replica' }),
      refuse: (session, name, args) => {
        const refused = this.refuse(node, session, name, args);
        // A redirect (MOVED, ASK, TRYAGAIN) sends the command again as a new hop (invariants.ts).
        if (refused !== undefined)
          this.redirected.push({
            args: name === 'EXEC' ? (session.multi ?? []).flat() : [...args],
            at: this.scheduler.now(),
          });
        return refused;
      },
      command: (session, name, args) => this.command(session, name, args),
      after: (session, name) => {
        // ASKING lasts one command, or the whole transaction it comes before (Redis does so).
        if (name !== 'ASKING' && session.multi === undefined) session.marks.delete('asking');
      },
    };
  }

  private refuse(
    node: ClusterNode,
    session: Session,
    name: string,
    args: readonly string[],
  ): Reply | undefined {
    const keys =
      name === 'EXEC'
        ? (session.multi ?? []).flatMap((queued) => keysOf(queued[0]!.toUpperCase(), queued))
        : keysOf(name, args);
    if (keys.length === 0) return undefined;
    const slot = slotOf(keys[0]!);
    if (keys.some((key) => slotOf(key) !== slot))
      return { error: "CROSSSLOT Keys in request don't hash to the same slot" };
    const owner = this.owner[slot]!;
    const migration = this.migration?.slot === slot ? this.migration : undefined;
    if (node.shard === owner && node.role === 'primary') {
      if (migration === undefined) return undefined;
      // A migrating slot's keys still here are served here; the others are asked for on the target.
      const present = keys.filter((key) => this.stores[owner]!.data.has(key)).length;
      if (present === keys.length) return undefined;
      if (present > 0) return { error: 'TRYAGAIN Multiple keys request during rehashing of slot' };
      return { error: `ASK ${slot} ${this.primaryOf(migration.to)!.name}` };
    }
    if (migration?.to === node.shard && node.role === 'primary' && session.marks.has('asking')) {
      const store = this.stores[node.shard]!;
      // Redis (cluster.c getNodeByQuery) counts a request as multi-key only for distinct keys: a
      // transaction naming one key twice is served by ASKING, never answered TRYAGAIN.
      if (new Set(keys).size > 1 && keys.some((key) => !store.data.has(key)))
        return { error: 'TRYAGAIN Multiple keys request during rehashing of slot' };
      return undefined;
    }
    if (node.shard === owner && session.marks.has('readonly') && READS.has(name)) return undefined;
    return this.moved(slot);
  }

  private command(session: Session, name: string, args: readonly string[]): Reply | undefined {
    switch (name) {
      case 'ASKING':
        session.marks.add('asking');
        return OK;
      case 'READONLY':
        session.marks.add('readonly');
        return OK;
      case 'READWRITE':
        session.marks.delete('readonly');
        return OK;
      case 'CLUSTER': {
        const sub = args[1]?.toUpperCase();
        if (sub === 'SHARDS' && !this.slotsOnly) return this.shards();
        if (sub === 'SLOTS') return this.slots();
        return { error: `ERR unknown subcommand '${args[1]}'. Try CLUSTER HELP.` };
      }
      default:
        return undefined;
    }
  }

  /** Each shard's contiguous slot ranges. */
  private ranges(shard: number): number[][] {
    const ranges: number[][] = [];
    for (let slot = 0; slot < SLOTS; slot++) {
      if (this.owner[slot] !== shard) continue;
      const last = ranges[ranges.length - 1];
      if (last !== undefined && last[1] === slot - 1) last[1] = slot;
      else ranges.push([slot, slot]);
    }
    return ranges;
  }

  private shardNodes(shard: number): ClusterNode[] {
    // The primary first, as Redis lists it.
    return this.nodes
      .filter((node) => node.shard === shard)
      .sort((a, b) => (a.role === b.role ? 0 : a.role === 'primary' ? -1 : 1));
  }

  private shards(): Reply {
    return this.stores.map((_, shard) => ({
      map: [
        ['slots', this.ranges(shard).flat()],
        [
          'nodes',
          this.shardNodes(shard).map((node) => ({
            map: [
              ['id', node.id],
              ['port', node.endpoint.port],
              ['ip', node.endpoint.host],
              ['endpoint', node.endpoint.host],
              ['role', node.role === 'primary' ? 'master' : 'replica'],
              ['replication-offset', 0],
              ['health', node.up ? 'online' : 'fail'],
            ],
          })),
        ],
      ],
    }));
  }

  private slots(): Reply {
    const entries: Reply[] = [];
    this.stores.forEach((_, shard) => {
      // Redis leaves failed replicas out of CLUSTER SLOTS, but keeps a failed primary.
      const nodes = this.shardNodes(shard).filter((node) => node.up || node.role === 'primary');
      const described = nodes.map((node) => [node.endpoint.host, node.endpoint.port, node.id]);
      for (const [start, end] of this.ranges(shard)) entries.push([start!, end!, ...described]);
    });
    return entries;
  }
}
