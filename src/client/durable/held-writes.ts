// A durability batch's writes in Cluster mode (durable-batch.ts): each write goes out as a try whose
// reply is held until every write has answered, so that a batch whose writes all met MOVED or ASK
// (none of them ran) goes whole where the router says (node/data-redirect.ts), on a connection of
// that node, ASKING before each write after an ASK: WAIT counts only the writes of the connection
// it runs on, so the writes never split across two. When some ran and some were redirected (keys
// split by a migration), nothing is resent: each write gets its own reply, and the redirected ones
// fail, which keeps WAIT from being sent (seed 000: a failed write prevents the acknowledgement).
import type { RespValue } from '../../resp/types.js';
import type { Channel } from '../../transport/channel.js';
import { Command, CommandFlags } from '../../transport/command.js';
import { enqueueAsked } from '../node/asking-prefix.js';
import { type DataRedirect, isRedirect, redirectedTo } from '../node/data-redirect.js';
import type { EndpointNode } from '../node/endpoint-node.js';

/** Where the writes ran: the dedicated connection WAIT must follow them on. */
export interface WritesPlace {
  readonly node: EndpointNode;
  readonly channel: Channel;
}

type Outcome = { readonly value: RespValue } | { readonly error: unknown };

/**
 * Sends `writes` on `channel` of `node`, following a redirect that all of them met; settles every
 * write, and resolves with where they ran (undefined when no connection could be had there).
 */
export async function sendHeldWrites(
  writes: readonly Command<unknown>[],
  node: EndpointNode,
  channel: Channel,
  redirect: DataRedirect,
): Promise<WritesPlace | undefined> {
  let place: WritesPlace = { node, channel };
  let asking = false;
  for (let hops = 1; ; hops++) {
    const outcomes = await Promise.all(writes.map((write) => tryOn(place.channel, write, asking)));
    const next = outcomes.every((outcome) => 'error' in outcome && isRedirect(outcome.error))
      ? await redirectedTo(redirect, (outcomes[0] as { error: unknown }).error, hops, place.node).catch(
          () => undefined,
        )
      : undefined;
    if (next === undefined) {
      outcomes.forEach((outcome, i) => {
        if ('error' in outcome) writes[i]!.reject(outcome.error);
        else writes[i]!.reply(outcome.value);
      });
      return place;
    }
    // Nothing ran: the connection is clean, and the writes go together to the next node.
    place.node.lender.release(place.channel);
    try {
      place = { node: next.node, channel: await next.node.lender.acquire() };
    } catch (error) {
      for (const write of writes) write.reject(error);
      return undefined;
    }
    asking = next.asking;
  }
}

/**
 * One write's try, checked by the circuit like the write itself; after an ASK, ASKING goes right
 * before it and is the step checked (its admission covers the pair, as for a Cluster ASK).
 */
function tryOn(channel: Channel, write: Command<unknown>, asking: boolean): Promise<Outcome> {
  const flags = asking ? write.flags | CommandFlags.TransactionStep : write.flags;
  const attempt = new Command<RespValue>(write.args, flags, undefined, write.signal, write.timeoutMs);
  if (asking) enqueueAsked(channel, attempt as Command<unknown>);
  else channel.enqueue(attempt as Command<unknown>);
  return attempt.promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}
