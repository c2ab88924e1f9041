// Cluster error replies classified once, where they arrive (STYLE.md "Errors", as redis-rs does):
// MOVED and ASK with their slot and target, TRYAGAIN and CLUSTERDOWN (PROTOCOL.md §2.3). Nothing
// else in the router reads their text.
import type { RespireConfigurationError, RespireServerError } from '../errors.js';
import { SLOT_COUNT } from './key-slot.js';
import { type AddressContext, type NodeAddress, nodeAddress } from './node-address.js';

/**
 * What a cluster error reply asks of the router. `target` is `null` when the server named no
 * usable address (`?`, port 0, or text Respire cannot read): the router then refreshes the
 * topology and routes by the new map.
 */
export type ClusterRedirect =
  /** The slot lives elsewhere for good: resend there, patch the slot, schedule a refresh. */
  | { readonly kind: 'moved'; readonly slot: number; readonly target: NodeAddress | null }
  /** The slot is migrating: `ASKING` plus this command on the target, the map unchanged. */
  | { readonly kind: 'ask'; readonly slot: number; readonly target: NodeAddress | null }
  /** A multi-key command during a slot's migration: again after a short delay. */
  | { readonly kind: 'tryagain' }
  /** The cluster (or this slot) is not served: refresh, back off, again. */
  | { readonly kind: 'clusterdown' };

/**
 * The cluster meaning of an error reply, `undefined` for an ordinary error (it reaches the caller).
 * A MOVED or ASK whose slot cannot be read is ordinary too: it cannot be followed.
 *
 * Targets are `host:port` with the host as the server printed it: an IPv6 host unbracketed
 * (`::1:6380`, split at the last colon; `[::1]:6380` is read too), and an empty host (`:6380`,
 * Redis 7.0+) meaning `context.blankHost`, the announced host of the node that answered.
 * `context.addressMap` rewrites the target (API.md "Cluster").
 *
 * @throws RespireConfigurationError when `addressMap` throws or returns no endpoint.
 */
export function classifyClusterError(
  error: RespireServerError,
  context: AddressContext,
): ClusterRedirect | undefined {
  switch (error.code) {
    case 'MOVED':
    case 'ASK':
      return readRedirect(error.code === 'MOVED' ? 'moved' : 'ask', error.message, context);
    case 'TRYAGAIN':
      return TRY_AGAIN;
    case 'CLUSTERDOWN':
      return CLUSTER_DOWN;
    default:
      return undefined;
  }
}

/**
 * classifyClusterError for a reply being handled in the reply loop, which must not throw: the
 * RespireConfigurationError of an `addressMap` that threw (or returned no endpoint) for the target
 * is returned, for the router to fail the command with.
 */
export function clusterRedirectOf(
  error: RespireServerError,
  context: AddressContext,
): ClusterRedirect | undefined | RespireConfigurationError {
  try {
    return classifyClusterError(error, context);
  } catch (failure) {
    return failure as RespireConfigurationError;
  }
}

const TRY_AGAIN: ClusterRedirect = Object.freeze({ kind: 'tryagain' });
const CLUSTER_DOWN: ClusterRedirect = Object.freeze({ kind: 'clusterdown' });

/** `MOVED <slot> <host>:<port>`, as cluster.c `clusterRedirectClient` writes it. */
const REDIRECT = /^\S+ (\d{1,5})(?:$| (\S*))/;

function readRedirect(
  kind: 'moved' | 'ask',
  message: string,
  context: AddressContext,
): ClusterRedirect | undefined {
  const match = REDIRECT.exec(message);
  if (match === null) return undefined;
  const slot = Number(match[1]);
  if (slot >= SLOT_COUNT) return undefined;
  return { kind, slot, target: readTarget(match[2] ?? '', context) };
}

function readTarget(text: string, context: AddressContext): NodeAddress | null {
  const colon = text.lastIndexOf(':');
  if (colon === -1) return null;
  const portText = text.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portText)) return null;
  const port = Number(portText);
  if (port > 65535) return null;
  let host = text.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return nodeAddress(host, port, context);
}
