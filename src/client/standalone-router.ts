// The standalone router: every command to the configured endpoint, except, with
// `replicaEndpoints`, read-only commands under `readFrom`, which go to the replicas in turn
// (`replicaPreferred` falls back to the primary while no replica has a connection).
import { RespireConnectionError, type RespireEndpoint } from '../errors.js';
import { type Command, CommandFlags } from '../transport/command.js';
import { endpointKey } from './endpoint.js';
import type { ReadFrom } from './mode-options.js';
import type { ClientCircuit } from './node/circuit-gate.js';
import type { EndpointNode } from './node/endpoint-node.js';
import { isReadOnlyCommand } from './read-only-commands.js';
import type { Router } from './router.js';

export class StandaloneRouter implements Router {
  private replicaTurn = 0;

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
    const node = this.nodeFor(command);
    if (node instanceof Error) command.reject(node);
    else node.send(command);
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
  private nodeFor(command: Command<unknown>): EndpointNode | Error {
    if ((command.flags & CommandFlags.Blocking) !== 0 || !isReadOnlyCommand(command.args)) return this.node;
    const count = this.replicas.length;
    for (let tried = 0; tried < count; tried++) {
      const replica = this.replicas[this.replicaTurn++ % count]!;
      if (this.readFrom === 'replica' || replica.main.current !== undefined) return replica;
    }
    if (this.readFrom === 'replicaPreferred') return this.node;
    return new RespireConnectionError('no replica of replicaEndpoints is connected', {
      endpoint: this.node.endpoint,
      written: false,
    });
  }
}
