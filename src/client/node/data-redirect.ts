// Where a data method on a dedicated connection (getStream, setFromStream, importHash, durable)
// goes after a MOVED or ASK in Cluster mode (README "Streamed values, hash imports, durability
// batches"): where the router sends a transaction (its `transactionRedirect`: a MOVED patches the
// slot map and asks for a refresh, at most `cluster.maxRedirections` hops). Each method follows a
// redirect only while nothing it sent has run, and says so when it cannot.
import { RespireServerError } from '../../errors.js';
import type { RedirectPause } from '../transactions/transaction-run.js';
import type { EndpointNode } from './endpoint-node.js';

/** The router's `transactionRedirect`; absent outside Cluster mode. */
export type DataRedirect = (
  cause: RespireServerError,
  hops: number,
  from: EndpointNode,
  asking: boolean,
) => { readonly node: EndpointNode; readonly asking: boolean; readonly pause?: RedirectPause } | undefined;

/** Where to go after `error` from `from` (once a TRYAGAIN backoff passed); undefined: not followed. */
export async function redirectedTo(
  redirect: DataRedirect | undefined,
  error: unknown,
  hops: number,
  from: EndpointNode,
): Promise<{ readonly node: EndpointNode; readonly asking: boolean } | undefined> {
  if (redirect === undefined || !(error instanceof RespireServerError)) return undefined;
  const next = redirect(error, hops, from, false);
  if (next === undefined) return undefined;
  const pause = next.pause;
  if (pause !== undefined) await new Promise<void>((resolve, reject) => pause(resolve, { reject }));
  return next;
}

/** Whether an error reply is a redirect (which ran nothing on the node that sent it). */
export function isRedirect(error: unknown): error is RespireServerError {
  return error instanceof RespireServerError && (error.code === 'MOVED' || error.code === 'ASK');
}
