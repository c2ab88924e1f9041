// One try of a command on one Cluster node (seed 000 "Redis Cluster", "Retries"). The caller's
// command record (the origin) is never written itself: each try is an attempt of its own, admitted
// by the circuit of the node it is written to, so a MOVED, ASK, TRYAGAIN or CLUSTERDOWN reply can be
// followed to another node without the caller seeing it. A redirect reply counts as healthy for
// the node that sent it; the origin settles with the last attempt's outcome.
import type { EndpointNode } from '../client/node/endpoint-node.js';
import { RespireServerError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { Command, CommandFlags, type SettleObserver } from '../transport/command.js';
import { Health } from '../transport/health.js';

/** What decides whether an error reply is followed (the router). */
export interface RedirectFollower {
  /** True when the router has sent the origin on (the attempt then settles quietly). */
  follow(attempt: ClusterAttempt, error: RespireServerError): boolean;
  /** An attempt failed without a reply (connection, deadline): the topology may have changed. */
  attemptFailed(attempt: ClusterAttempt, error: unknown): void;
}

export class ClusterAttempt extends Command<RespValue> {
  constructor(
    /** The caller's command (or a part of a split one): settles from the last attempt. */
    readonly origin: Command<unknown>,
    /** The node this attempt is written to. */
    readonly node: EndpointNode,
    /** Redirects followed before this attempt. */
    readonly hops: number,
    private readonly follower: RedirectFollower,
  ) {
    super(origin.args, origin.flags, undefined, origin.signal, origin.timeoutMs);
    this.observer = FORWARD;
  }

  override reply(value: RespValue): void {
    if (
      value instanceof RespireServerError &&
      !this.settled &&
      !this.origin.settled &&
      this.follower.follow(this, value)
    ) {
      this.reportHealth(Health.Success);
      this.observer = undefined;
      this.resolve(null);
      return;
    }
    super.reply(value);
  }

  /** Called by FORWARD with this attempt's outcome. */
  forward(failed: boolean, outcome: unknown): void {
    const origin = this.origin;
    if (failed) {
      // Nobody awaits the attempt's own promise.
      this.promise.catch(ignore);
      this.follower.attemptFailed(this, outcome);
      origin.reject(outcome);
    } else if ((origin.flags & CommandFlags.FireAndForget) !== 0) {
      origin.resolve(undefined);
    } else {
      origin.reply(outcome as RespValue);
    }
  }
}

/** One observer for every attempt: no closure per command. */
const FORWARD: SettleObserver = {
  commandSettled(command, failed, outcome) {
    (command as unknown as ClusterAttempt).forward(failed, outcome);
  },
};

function ignore(): void {}
