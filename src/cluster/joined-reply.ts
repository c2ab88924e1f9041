// The caller's reply to a command the router sent as several parts (a split MGET, a keyless command
// fanned out to every primary): once every part has settled, the joined reply, or the first failed
// part's error in part order (API.md "Cluster": not atomic; a part's failure fails the command);
// with `fireAndForget`, nothing once every part is written.
// For a write, an error that says "not sent" while other parts ran becomes the ambiguous write's
// (partial-write.ts).
import type { EndpointNode } from '../client/node/endpoint-node.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { Command, CommandFlags, type SettleObserver } from '../transport/command.js';
import { fateOf, type PartFate, partialWriteError } from './partial-write.js';

export class JoinedReply implements SettleObserver {
  private readonly values: RespValue[];
  /** The failed part with the lowest position, and its error. */
  private failedAt = Number.POSITIVE_INFINITY;
  private error: unknown;
  private remaining: number;
  /** The lowest position of a part that succeeded. */
  private firstSuccess: number | undefined;
  /** For a write: what became of each part, for the caller's error when one fails. */
  private readonly fates: PartFate[] | undefined;

  /** Makes one part per `partArgs`, each settling into this join. */
  constructor(
    private readonly origin: Command<unknown>,
    partArgs: readonly (readonly RespArgument[])[],
    private readonly join: (replies: readonly RespValue[]) => RespValue,
    /** For a command that writes: names part `i` in a partly-applied error (partial-write.ts). */
    private readonly describeWrite?: (part: number) => string,
    /**
     * `response_policy:one_succeeded` (SCRIPT KILL, FUNCTION KILL): a part's reply that is not an
     * error answers the command, the others' errors notwithstanding; it fails only when all fail.
     */
    private readonly oneSucceeds = false,
  ) {
    this.remaining = partArgs.length;
    this.fates =
      describeWrite === undefined ? undefined : new Array<PartFate>(partArgs.length).fill('unsent');
    this.values = new Array(partArgs.length);
    // A part's reply is needed for the join, unless the caller asked for none (fireAndForget): then
    // the parts are fire-and-forget too, and the command resolves once every part is written.
    const flags = origin.flags;
    this.fireAndForget = (flags & CommandFlags.FireAndForget) !== 0;
    this.parts = partArgs.map((args, i) => {
      const part = new Command<unknown>(args, flags, undefined, origin.signal, origin.timeoutMs);
      part.observer = this;
      part.position = i;
      return part;
    });
  }

  readonly parts: readonly Command<unknown>[];
  private readonly fireAndForget: boolean;

  /**
   * Rejects the caller's command, sending no part, when a part has no node (`nodeOf`'s error) or
   * its node's circuit rejects it now: a rejection says nothing was sent (seed 000), and the other
   * parts of an MSET, a DEL or a fanned-out FLUSHALL would be written. True when it did. (A split
   * read's other parts are sent: harmless, and a MOVED among them still patches the map.)
   */
  rejectedBefore(nodeOf: (part: Command<unknown>, index: number) => EndpointNode | Error): boolean {
    // Parts counted per node: a half-open node admits only as many as it has free probe slots. A
    // closed circuit admits every part: no count, no map (the common case costs one state read).
    let ahead: Map<EndpointNode, number> | undefined;
    for (let i = 0; i < this.parts.length; i++) {
      const part = this.parts[i]!;
      const node = nodeOf(part, i);
      // No node to send it to (an unserved slot: CLUSTERDOWN): as unsent as a circuit's rejection.
      let refusal: Error | undefined;
      if (node instanceof Error) refusal = node;
      else if (node.circuit === undefined || node.circuit.state === 'closed') continue;
      else {
        const count = ahead?.get(node) ?? 0;
        (ahead ??= new Map()).set(node, count + 1);
        refusal = node.gate?.rejectAmong(part, count);
      }
      if (refusal === undefined) continue;
      this.origin.reject(refusal);
      return true;
    }
    return false;
  }

  commandSettled(command: Command<unknown>, failed: boolean, outcome: unknown): void {
    if (this.fates !== undefined) this.fates[command.position] = fateOf(failed, outcome);
    if (failed) {
      command.promise.catch(ignore);
      if (command.position < this.failedAt) {
        this.failedAt = command.position;
        this.error = outcome;
      }
    } else {
      this.values[command.position] = outcome as RespValue;
      if (this.firstSuccess === undefined || command.position < this.firstSuccess)
        this.firstSuccess = command.position;
    }
    if (--this.remaining > 0) return;
    if (this.oneSucceeds && this.firstSuccess !== undefined) {
      this.origin.reply(this.values[this.firstSuccess]!);
      return;
    }
    if (this.failedAt === Number.POSITIVE_INFINITY) {
      if (this.fireAndForget) {
        this.origin.resolve(undefined);
        return;
      }
      let joined: RespValue;
      try {
        joined = this.join(this.values);
      } catch (error) {
        this.origin.reject(error);
        return;
      }
      this.origin.reply(joined);
      return;
    }
    const error =
      this.fates === undefined
        ? this.error
        : partialWriteError(this.origin.args, this.fates, this.error, this.describeWrite!);
    this.origin.reject(error);
  }
}

function ignore(): void {}
