// The standalone router: every command to the configured endpoint, except, with
// `replicaEndpoints`, read-only commands under `readFrom`, which go to the connected replicas in
// turn (with none connected, `replica` waits on one, `replicaPreferred` uses the primary).
import type { RespireEndpoint } from '../errors.js';
import type { Command } from '../transport/command.js';
import { endpointKey } from './endpoint.js';
import type { ReadFrom } from './mode-options.js';
import type { ClientCircuit } from './node/circuit-gate.js';
import type { EndpointNode } from './node/endpoint-node.js';
import { ReplicaTurns, readsFromReplica } from './replica-reads.js';
import type { Router } from './router.js';

export class StandaloneRouter implements Router {
  private readonly turns = new ReplicaTurns();

  constructor(
    private readonly node: EndpointNode,
    private readonly replicas: readonly EndpointNode[] = [],
    private readonly readFrom: ReadFrom = 'primary',
  ) {}

  get endpoint(): RespireEndpoint {
    return this.node.endpoint;
  }

  /** Opens the primary's connection (rejecting with its error); replicas connect in the background. */
  start(): Promise<void> {
    for (const replica of this.replicas) replica.startInBackground();
    return this.node.start();
  }

  send(command: Command<unknown>): void {
    if (this.replicas.length === 0 || this.readFrom === 'primary') {
      this.node.send(command);
      return;
    }
    this.nodeFor(command).send(command);
  }

  transactionNode(): EndpointNode {
    return this.node;
  }

  watchNode(): EndpointNode {
    return this.node;
  }

  subscriberNode(): EndpointNode {
    return this.node;
  }

  subscriberNodes(): readonly EndpointNode[] {
    return [this.node];
  }

  circuitOf(endpoint: RespireEndpoint): ClientCircuit | undefined {
    return endpointKey(endpoint) === endpointKey(this.node.endpoint) ? this.node.circuit : undefined;
  }

  close(): Promise<void> {
    return Promise.all([this.node.close(), ...this.replicas.map((replica) => replica.close())]).then(
      () => {},
    );
  }

  destroy(): void {
    this.node.destroy();
    for (const replica of this.replicas) replica.destroy();
  }

  /** Writes and blocking commands to the primary; read-only ones to a replica under `readFrom`. */
  private nodeFor(command: Command<unknown>): EndpointNode {
    if (!readsFromReplica(command, this.readFrom)) return this.node;
    // None connected: 'replica' waits on one (it reconnects per policy), 'replicaPreferred' reads
    // from the primary.
    const replica = this.turns.connected(this.replicas, command);
    if (replica !== undefined) return replica;
    return this.readFrom === 'replica' ? this.turns.any(this.replicas)! : this.node;
  }
}
