// One try of a command on one Cluster node (seed 000 "Redis Cluster", "Retries"). The caller's
// command record (the origin) is never written itself: each try is an attempt of its own, admitted
// by the circuit of the node it is written to, so a MOVED, ASK, TRYAGAIN or CLUSTERDOWN reply can be
// followed to another node without the caller seeing it. A redirect reply counts as healthy for
// the node that sent it; the origin settles with the last attempt's outcome.
import { fillsCache } from '../client/cache/cached-read.js';
import { AskingPrefix } from '../client/node/asking-prefix.js';
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
  /** After an ASK: the ASKING written right before this attempt, which admits both. */
  readonly asking: AskingPrefix | undefined;

  constructor(
    /** The caller's command (or a part of a split one): settles from the last attempt. */
    readonly origin: Command<unknown>,
    /** The node this attempt is written to. */
    readonly node: EndpointNode,
    /** Redirects followed before this attempt. */
    readonly hops: number,
    private readonly follower: RedirectFollower,
    asking: boolean,
    /** Moved unsent from a node it waited on: its acquire deadline there, kept (channel.ts). */
    acquireDeadline = 0,
  ) {
    // Behind ASKING the attempt is not checked again (TransactionStep): ASKING's admission is its.
    const flags = asking ? origin.flags | CommandFlags.TransactionStep : origin.flags;
    super(origin.args, flags, undefined, origin.signal, origin.timeoutMs);
    this.observer = FORWARD;
    this.asking = asking ? new AskingPrefix(this as unknown as Command<unknown>) : undefined;
    this.deadline = acquireDeadline;
  }

  override reply(value: RespValue): void {
    if (
      value instanceof RespireServerError &&
      (isFireAndForget(this) || !(this.settled || this.origin.settled)) &&
      this.follower.follow(this, value)
    ) {
      // A fire-and-forget send records nothing, its redirect included (seed 000), unless it waits
      // for its reply to fill the cache.
      this.reportHealth(this.discards() ? Health.None : Health.Success);
      this.observer = undefined;
      this.resolve(null);
      return;
    }
    if (isFireAndForget(this) && !this.discards()) {
      // Seed 000: a fire-and-forget cacheable read waits for its reply, to fill the cache, and so
      // records that reply's outcome, as in standalone mode (cached-read.ts). The attempt itself
      // settled at its write, as its origin did.
      this.reportHealth(Health.Success);
      this.origin.reply(value);
      return;
    }
    super.reply(value);
  }

  /** A fire-and-forget send whose reply nobody wants (a cache miss wants it: cached-read.ts). */
  private discards(): boolean {
    return isFireAndForget(this) && !fillsCache(this.origin);
  }

  /** Taken out unsent, to be sent elsewhere: it ends with no health outcome, the origin untouched. */
  abandon(): void {
    this.reportHealth(Health.None);
    this.observer = undefined;
    this.resolve(null);
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

function isFireAndForget(command: { readonly flags: number }): boolean {
  return (command.flags & CommandFlags.FireAndForget) !== 0;
}

/**
 * Whether a command is still to be sent on (a redirect, a move): it has not settled, or it is a
 * fire-and-forget send, settled when written, whose MOVED or ASK means the write did not happen.
 */
export function stillToSend(command: { readonly settled: boolean; readonly flags: number }): boolean {
  return !command.settled || isFireAndForget(command);
}

/** One observer for every attempt: no closure per command. */
const FORWARD: SettleObserver = {
  commandSettled(command, failed, outcome) {
    (command as unknown as ClusterAttempt).forward(failed, outcome);
  },
};

function ignore(): void {}
