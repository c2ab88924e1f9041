// The standalone router: one node, the configured endpoint, for every command.
import type { RespireEndpoint } from '../errors.js';
import type { Command } from '../transport/command.js';
import type { ClientCircuit } from './circuit-gate.js';
import { endpointKey } from './endpoint.js';
import type { EndpointNode } from './node/endpoint-node.js';
import type { Router } from './router.js';

export class StandaloneRouter implements Router {
  constructor(private readonly node: EndpointNode) {}

  get endpoint(): RespireEndpoint {
    return this.node.endpoint;
  }

  start(): Promise<void> {
    return this.node.start();
  }

  send(command: Command<unknown>): void {
    this.node.send(command);
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
    return this.node.close();
  }

  destroy(): void {
    this.node.destroy();
  }
}
