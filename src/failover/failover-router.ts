// The failover group's router (issue 14): the group client's commands, batches, transactions,
// WATCH sessions and subscriptions go to the router of the active member's own client, whatever
// its mode. It holds no connection itself; switching members is member-switch.ts.
import type { ClientCircuit } from '../client/node/circuit-gate.js';
import type { EndpointNode } from '../client/node/endpoint-node.js';
import type { Router } from '../client/router.js';
import type { RespireEndpoint, RespireServerError } from '../errors.js';
import type { Command } from '../transport/command.js';
import type { Member, MemberClient } from './member.js';

/** What the router asks the group: the members and which one is active. */
export interface MemberSource {
  readonly members: readonly Member[];
  /** The active member; always open (the group connects only once one is). */
  readonly activeMember: Member;
  close(): Promise<void>;
  destroy(): void;
}

export class FailoverRouter implements Router {
  constructor(private readonly group: MemberSource) {}

  /** The active member's endpoint. */
  get endpoint(): RespireEndpoint {
    return this.routerOf(this.group.activeMember).endpoint;
  }

  /** The group opened its members before the client exists. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  send(command: Command<unknown>): void {
    this.routerOf(this.group.activeMember).send(command);
  }

  transactionNode(entries: readonly Command<unknown>[], what?: string): EndpointNode | Error {
    return this.routerOf(this.group.activeMember).transactionNode(entries, what);
  }

  /** A Cluster member's redirect, asked of the member whose node the transaction ran on. */
  transactionRedirect(
    cause: RespireServerError,
    hops: number,
    from: EndpointNode,
    asking: boolean,
  ): { readonly node: EndpointNode; readonly asking: boolean; readonly delayMs?: number } | undefined {
    const member = this.group.members.find((candidate) => candidate.client?.nodes.has(from));
    return member && this.routerOf(member).transactionRedirect?.(cause, hops, from, asking);
  }

  watchNode(keys: readonly (string | Buffer)[]): EndpointNode | Error {
    return this.routerOf(this.group.activeMember).watchNode(keys);
  }

  subscriberNode(
    kind: Parameters<Router['subscriberNode']>[0],
    names: readonly string[],
  ): EndpointNode | Error {
    return this.routerOf(this.group.activeMember).subscriberNode(kind, names);
  }

  /** Every member's: unsubscribing leaves no member subscribed. */
  subscriberNodes(): readonly EndpointNode[] {
    return this.group.members.flatMap((member) =>
      member.client === undefined ? [] : member.client.memberRouter.subscriberNodes(),
    );
  }

  circuitOf(endpoint: RespireEndpoint): ClientCircuit | undefined {
    for (const member of this.group.members) {
      const circuit = member.client?.circuitOf(endpoint);
      if (circuit !== undefined) return circuit;
    }
    return undefined;
  }

  /** The members' clients that are open. */
  openClients(): MemberClient[] {
    return this.group.members.flatMap((member) => (member.client === undefined ? [] : [member.client]));
  }

  close(): Promise<void> {
    return this.group.close();
  }

  destroy(): void {
    this.group.destroy();
  }

  private routerOf(member: Member): Router {
    return member.client!.memberRouter;
  }
}
