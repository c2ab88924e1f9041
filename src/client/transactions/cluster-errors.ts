// The errors a Cluster transaction or WATCH session ends with when the router does not follow a
// cluster error (issue 11 "Routing"; PROTOCOL.md §2.3), worded so the caller sees the cause.
import { type RespireEndpoint, RespireServerError } from '../../errors.js';

/**
 * EXEC answered `reply` (EXECABORT when `cause` was answered at queue time). A CLUSTERDOWN there (the
 * router backs off and resends single commands, never a transaction whose EXEC was written)
 * becomes the error, with its code, saying that nothing ran: `EXECABORT Transaction discarded
 * because of previous errors` hid why. Other queue-time errors keep the server's EXECABORT, the
 * first of them as `cause` (MOVED or ASK past `maxRedirections` included).
 */
export function discardedTransactionError(
  reply: RespireServerError,
  cause: RespireServerError | undefined,
  endpoint: RespireEndpoint,
  clustered: boolean,
): RespireServerError {
  if (clustered && cause?.code === 'CLUSTERDOWN') {
    return new RespireServerError(`${cause.message} (transaction discarded: nothing was executed)`, {
      endpoint,
      cause,
    });
  }
  return new RespireServerError(reply.message, { endpoint, cause });
}

/**
 * WATCH answered ASK: its slot is migrating and the key has left the source. ASK redirects one
 * command (PROTOCOL.md §2.3), while the session's later reads, MULTI and EXEC would each need
 * ASKING on the target, so the session is not opened there; the caller watches again later (once
 * the migration ends, WATCH follows the MOVED). The code stays `ASK`.
 */
export function watchAskError(ask: RespireServerError, keys: number): RespireServerError {
  const slot = ask.message.split(' ')[1] ?? '?';
  return new RespireServerError(
    `${ask.message}: WATCH of ${keys === 1 ? '1 key' : `${keys} keys`} cannot follow ASK (slot ${slot} is migrating); watch again once the migration ends`,
    { endpoint: ask.endpoint, cause: ask },
  );
}
