// One member of a failover group (issue 14): its data client, a full client of the member's own
// mode with its own circuits, whose router the group's router sends to while the member is active;
// the nodes that client made (to take back commands not yet accepted when the group switches away);
// and its health-probe circuit.
import type { CacheFront } from '../client/cache/cache-front.js';
import { ClientCore } from '../client/client-core.js';
import { anyInMaintenance, type EndpointNode } from '../client/node/endpoint-node.js';
import type { ResolvedOptions } from '../client/options.js';
import type { Router } from '../client/router.js';
import { routerFor } from '../respire-client.js';
import type { RespireFailoverMember } from './options.js';
import type { ProbeCircuit } from './probe-circuit.js';

/** A member's data client: a RespireClient whose router and nodes the group can reach. */
export class MemberClient extends ClientCore {
  /** The nodes the member's router made and has not closed (standalone: one; Cluster and Sentinel: as they come). */
  readonly nodes: ReadonlySet<EndpointNode>;

  private constructor(resolved: ResolvedOptions, nodes: Set<EndpointNode>) {
    const makeRouter = routerFor(resolved);
    super(resolved, (factory) =>
      makeRouter({
        // The whole factory, as a plain client's: without `caching` a Cluster member opened no
        // tracking connection on nodes it had not used, and without `placeTransaction` its
        // transactions waiting for a node the slot map moved or dropped did not move.
        ...factory,
        create(endpoint, extras) {
          // A blocking command that finds its endpoint down waits, under its acquire deadline, as
          // queued commands do, so that a switch moves it too (Sentinel sets this itself; Cluster
          // asks the other primaries instead).
          const hold = extras?.holdBlockingWhileDown ?? resolved.mode !== 'cluster';
          // Held until its router closes it (a Sentinel primary replaced, a node a Cluster refresh
          // dropped): by then nothing of it is left to move.
          const node = factory.create(endpoint, {
            ...extras,
            holdBlockingWhileDown: hold,
            onClosed: () => nodes.delete(node),
          });
          nodes.add(node);
          return node;
        },
      }),
    );
    this.nodes = nodes;
  }

  /** A client not yet connected: `connect()` it (made first so that it can be destroyed meanwhile). */
  static unopened(resolved: ResolvedOptions): MemberClient {
    return new MemberClient(resolved, new Set());
  }

  /** Connects as RespireClient.connect does (rejects with its error, the client then destroyed). */
  connect(): Promise<void> {
    return this.start();
  }

  /** Whether a maintenance window is open on one of its nodes (a failover group's probes relax then). */
  get inMaintenance(): boolean {
    return anyInMaintenance(this.nodes);
  }

  get memberRouter(): Router {
    return this.router;
  }

  /** Its client-side cache (with `clientSideCache`): the group client's while it is active. */
  get memberCache(): CacheFront | undefined {
    return this.cache;
  }
}

export class Member {
  readonly name: string;
  readonly weight: number;
  readonly resolved: ResolvedOptions;
  /** Open once connected; undefined while the member has never been reachable. */
  client: MemberClient | undefined;
  private opening: Promise<MemberClient> | undefined;
  /** The client `opening` connects: giveUp() destroys it. */
  private unopened: MemberClient | undefined;

  constructor(
    config: RespireFailoverMember,
    resolved: ResolvedOptions,
    readonly circuit: ProbeCircuit,
  ) {
    this.name = config.name;
    this.weight = config.weight;
    this.resolved = resolved;
  }

  /** Healthy by its probes and connected: the group may send to it. */
  get available(): boolean {
    return this.client !== undefined && this.circuit.healthy;
  }

  /** Opens the data client (once at a time); a member already open resolves at once. */
  open(): Promise<MemberClient> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    if (this.opening !== undefined) return this.opening;
    const client = MemberClient.unopened(this.resolved);
    this.unopened = client;
    this.opening = client.connect().then(
      () => {
        this.opening = this.unopened = undefined;
        this.client = client;
        return client;
      },
      (error: unknown) => {
        this.opening = this.unopened = undefined;
        throw error;
      },
    );
    return this.opening;
  }

  /**
   * The group closes: a data client still being opened is destroyed, which gives up its connect
   * at once (against a black-holed member its socket would otherwise stay until connectTimeout).
   */
  giveUpOpening(): void {
    this.unopened?.destroy();
  }
}
