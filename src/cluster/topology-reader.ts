// Reads the cluster's topology from one node (PROTOCOL.md §2.4): `CLUSTER SHARDS`, falling back to
// `CLUSTER SLOTS` where the server has no SHARDS. On a connection of its own, opened and closed per
// read, never checked by a circuit (seed 000 "Redis Cluster": background topology refresh is not
// checked), so a refresh can find a healthy owner while a node's circuit is open.
import { RespireConnectionError, type RespireEndpoint, RespireServerError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { type ConnectionSettings, connect } from '../transport/connect.js';
import type { Connection } from '../transport/connection.js';
import type { AddressMap } from './node-address.js';
import type { TopologySource } from './reply-fields.js';
import { parseShardsReply } from './shards-reply.js';
import { parseSlotsReply } from './slots-reply.js';
import type { ClusterTopology } from './topology.js';

const NO_EVENTS = { onPush() {}, onDrain() {}, onClose() {} };

export interface TopologyReadOptions {
  /** How to reach and authenticate with a node (the data credentials, TLS, timeouts). */
  readonly settings: Omit<ConnectionSettings, 'endpoint'>;
  readonly addressMap: AddressMap | undefined;
}

/**
 * The topology as `node` sees it. `blankHost` is what a blank announced host stands for: the
 * node's announced host (a seed's configured host). Rejects with a RespireError.
 */
export async function readTopology(
  node: RespireEndpoint,
  blankHost: string,
  options: TopologyReadOptions,
): Promise<ClusterTopology> {
  const { settings, addressMap } = options;
  const { signal } = settings;
  let connection: Connection | undefined;
  // Stopping (the client's close) ends a read in flight at once, its connection with it.
  const stop = (): void => connection?.destroy(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    connection = await connect({ ...settings, endpoint: node, setupCommands: undefined }, NO_EVENTS);
    if (signal?.aborted) throw signal.reason;
    const timeoutMs = settings.connectTimeout;
    const source: TopologySource = { node, blankHost, tls: Boolean(settings.tls), addressMap };
    let reply: RespValue;
    try {
      reply = await connection.request(['CLUSTER', 'SHARDS'], timeoutMs);
    } catch (error) {
      if (!isUnknownSubcommand(error)) throw notClusterOr(error, node);
      return parseSlotsReply(await connection.request(['CLUSTER', 'SLOTS'], timeoutMs), source);
    }
    return parseShardsReply(reply, source);
  } finally {
    signal?.removeEventListener('abort', stop);
    connection?.destroy(undefined);
  }
}

function isUnknownSubcommand(error: unknown): boolean {
  return error instanceof RespireServerError && /unknown subcommand/i.test(error.message);
}

/** A seed without cluster mode says so plainly (issue 11 "Bad input and faults"). */
function notClusterOr(error: unknown, node: RespireEndpoint): unknown {
  if (error instanceof RespireServerError && /cluster support disabled/i.test(error.message)) {
    return new RespireConnectionError(
      `${node.host}:${node.port} is not a Redis Cluster node (cluster support disabled): connect without useCluster`,
      { cause: error, endpoint: node, written: false },
    );
  }
  return error;
}
