// Node addresses the cluster announces (topology replies, MOVED and ASK targets) turned into
// addresses to dial: blank and unknown hosts (PROTOCOL.md §2.4) and `cluster.addressMap` (API.md
// "Cluster": it rewrites every address the client learns, never the seeds).

import { endpointKey } from '../client/endpoint.js';
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';

/** `cluster.addressMap`: NAT, Docker or a test proxy between the client and the nodes. */
export type AddressMap = (endpoint: RespireEndpoint) => RespireEndpoint;

/** One node's address, as announced and as dialled. */
export interface NodeAddress {
  /** Where to connect: the announced address after `addressMap`. */
  readonly endpoint: RespireEndpoint;
  /** `endpointKey(endpoint)`: the node's identity across topologies, and its circuit's. */
  readonly key: string;
  /**
   * The address as the cluster announced it, before `addressMap`. A blank host in a reply from
   * this node (`MOVED 3999 :6380`, a `null` endpoint) stands for this host.
   */
  readonly announced: RespireEndpoint;
}

/** What a blank announced host stands for, and how announced addresses are rewritten. */
export interface AddressContext {
  /** The host the replying node is known by (its announced host; a seed's configured host). */
  readonly blankHost: string;
  readonly addressMap?: AddressMap | undefined;
}

const MAPPED = 'a function returning { host, port } with a non-empty host and a port from 1 through 65535';

/**
 * The address of an announced node. `host` `null` or `''` means the host of the node that replied
 * (a lone node, or `cluster-announce-*` left blank); `'?'` means the cluster does not know how to
 * reach the node (`cluster-preferred-endpoint-type unknown-endpoint`), and so does port 0: both
 * give `null`, an unusable node. The port is checked by the caller.
 *
 * @throws RespireConfigurationError when `addressMap` throws or returns something that is not an
 *   endpoint; the thrown value is the error's `cause`.
 */
export function nodeAddress(host: string | null, port: number, context: AddressContext): NodeAddress | null {
  if (host === '?' || port === 0) return null;
  const announced = { host: host === null || host === '' ? context.blankHost : host, port };
  const { addressMap } = context;
  if (addressMap === undefined) return { endpoint: announced, key: endpointKey(announced), announced };
  let mapped: unknown;
  try {
    mapped = addressMap(announced);
  } catch (error) {
    throw new RespireConfigurationError('cluster.addressMap', addressMap, MAPPED, {
      message: `cluster.addressMap threw for ${endpointKey(announced)}`,
      cause: error,
    });
  }
  const endpoint = validEndpoint(mapped);
  if (endpoint === undefined) {
    throw new RespireConfigurationError('cluster.addressMap', mapped, MAPPED, {
      message: `cluster.addressMap returned ${describe(mapped)} for ${endpointKey(announced)}; expected ${MAPPED}`,
    });
  }
  return { endpoint, key: endpointKey(endpoint), announced };
}

/** A copy of `value` when it is an endpoint, so later changes by the user's code cannot move a node. */
function validEndpoint(value: unknown): RespireEndpoint | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { host, port } = value as { host?: unknown; port?: unknown };
  if (typeof host !== 'string' || host.length === 0) return undefined;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

function describe(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  const { host, port } = value as { host?: unknown; port?: unknown };
  return `{ host: ${JSON.stringify(host) ?? 'undefined'}, port: ${String(port)} }`;
}
