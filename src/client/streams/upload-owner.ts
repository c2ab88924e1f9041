// Cluster: where `setFromStream` writes (upload.ts). Redis answers a SET only once it has read the
// whole value, so a MOVED or ASK to the streamed SET itself would come after the source was read,
// which cannot be read again. The upload therefore first asks the node its slot map names about
// the key (EXISTS on its shared connection, one round trip, checked by its circuit like any
// command), which meets the same MOVED or ASK the SET would, while nothing has been sent: the
// upload then goes where the router says (node/data-redirect.ts), with ASKING before the SET after
// an ASK. A slot that moves between the question and the SET still fails the upload, clearly.
import { RespireError } from '../../errors.js';
import type { RespValue } from '../../resp/types.js';
import { Command } from '../../transport/command.js';
import type { RedisArgument } from '../commands/caller.js';
import { isRedirect, redirectedTo } from '../node/data-redirect.js';
import type { EndpointNode } from '../node/endpoint-node.js';
import type { StreamSettings } from './raw-exchange.js';

/** The node to upload to, and whether ASKING goes before the SET. */
export interface UploadOwner {
  readonly node: EndpointNode;
  readonly asking: boolean;
}

/** Follows the key's MOVED and ASK before the upload starts; outside Cluster mode, `node` as it is. */
export async function uploadOwner(
  node: EndpointNode,
  key: RedisArgument,
  settings: StreamSettings,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<UploadOwner> {
  const redirect = settings.redirect;
  if (redirect === undefined) return { node, asking: false };
  let owner: UploadOwner = { node, asking: false };
  for (let hops = 1; ; hops++) {
    const probe = new Command<RespValue>(['EXISTS', key], 0, undefined, signal, timeoutMs);
    owner.node.send(probe as Command<unknown>, false);
    const answer = await probe.promise.then(
      () => undefined,
      (error: unknown) => error,
    );
    if (answer === undefined) return owner;
    if (!isRedirect(answer)) throw answer;
    const next = await redirectedTo(redirect, answer, hops, owner.node);
    if (next === undefined) throw answer;
    owner = next;
    // On an importing target EXISTS would need ASKING too; the SET gets it.
    if (owner.asking) return owner;
  }
}

/** The streamed SET itself met a redirect: the slot moved after the question; nothing was stored. */
export function movedDuringUpload(error: RespireError, node: EndpointNode): RespireError {
  return new RespireError(
    `setFromStream: ${error.message} once the value was sent: Redis stored nothing, and the source, already read, cannot be sent again; call setFromStream again with the value (it goes to the slot's new owner)`,
    { endpoint: node.endpoint, cause: error },
  );
}
