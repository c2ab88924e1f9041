// The client a failover member's health probes run on (health-prober.ts): a RespireClient (a probe
// function is given one) that also knows the nodes its router made, so the prober can tell whether
// the server announced a maintenance window on one of its connections (PROTOCOL.md §5).
import { anyInMaintenance, type EndpointNode } from '../client/node/endpoint-node.js';
import { type RespireOptions, resolveOptions } from '../client/options.js';
import { RespireClient, routerFor } from '../respire-client.js';

export class ProbeClient extends RespireClient {
  private readonly nodes: Set<EndpointNode>;

  private constructor(options: RespireOptions, nodes: Set<EndpointNode>) {
    const resolved = resolveOptions(options);
    const makeRouter = routerFor(resolved);
    super(resolved, (factory) =>
      makeRouter({
        ...factory,
        create(endpoint, extras) {
          const node = factory.create(endpoint, { ...extras, onClosed: () => nodes.delete(node) });
          nodes.add(node);
          return node;
        },
      }),
    );
    this.nodes = nodes;
  }

  /**
   * A client not yet connected: `connect()` it. Made first so that a prober closed meanwhile can
   * destroy it, which gives up its connect at once (a black-holed member would keep its socket
   * until connectTimeout).
   */
  static unopened(options: RespireOptions): ProbeClient {
    return new ProbeClient(options, new Set());
  }

  /** Connects as RespireClient.connect does (rejects with its error, the client then destroyed). */
  connect(): Promise<void> {
    return this.start();
  }

  /** Whether a maintenance window is open on one of its nodes. */
  get inMaintenance(): boolean {
    return anyInMaintenance(this.nodes);
  }
}
