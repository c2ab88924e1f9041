// A `CLUSTER SLOTS` reply (the fallback for servers before 7.0, PROTOCOL.md §2.4) read into a
// topology: `[start, end, primary, replica…]` per range, each node `[host, port, id?, metadata?…]`.
import type { RespValue } from '../resp/types.js';
import { nodeAddress } from './node-address.js';
import { integerOf, malformedReply, readRanges, type TopologySource, textOf } from './reply-fields.js';
import { type AnnouncedNode, type AnnouncedShard, buildTopology, type ClusterTopology } from './topology.js';

const COMMAND = 'CLUSTER SLOTS';

/**
 * The topology a `CLUSTER SLOTS` reply describes (rules: topology.ts `buildTopology`). Each range
 * is a shard of its own; a node repeated over ranges (non-contiguous slots) is one node. The port
 * is the one the server chose for clients (the TLS port of a `tls-cluster` server). The server
 * gives no health: it leaves failed replicas out but keeps a failed primary (observed on 7.0.15),
 * so every node is `online` and a dead primary shows when its connection fails. Elements after the
 * node id (metadata, since 7.0) and extra elements of a range are ignored; servers before 4.0 give
 * no id.
 *
 * @throws RespireProtocolError (`endpoint`: the node asked) when the reply does not have this shape.
 * @throws RespireConfigurationError when `addressMap` throws or returns no endpoint.
 */
export function parseSlotsReply(reply: RespValue, source: TopologySource): ClusterTopology {
  if (!Array.isArray(reply)) throw malformedReply(COMMAND, source, 'not an array of slot ranges');
  const shards = reply.map((range, index): AnnouncedShard => {
    const fail = (what: string) => malformedReply(COMMAND, source, `range ${index} ${what}`);
    if (!Array.isArray(range) || range.length < 3) throw fail('is not [start, end, primary, …]');
    const ranges = readRanges(range.slice(0, 2), fail);
    const nodes = range.slice(2).map((node, at) => readNode(node, at === 0, source, fail));
    return { ranges, nodes };
  });
  return buildTopology(shards);
}

function readNode(
  value: RespValue,
  primary: boolean,
  source: TopologySource,
  fail: (what: string) => Error,
): AnnouncedNode {
  const which = primary ? 'primary' : 'replica';
  if (!Array.isArray(value) || value.length < 2) throw fail(`has a ${which} that is not [host, port, …]`);
  const host = textOf(value[0]);
  const port = integerOf(value[1]);
  if (host === undefined) throw fail(`has a ${which} whose host is not a string`);
  if (port === undefined || port > 65535) throw fail(`has a ${which} with the port ${String(value[1])}`);
  const id = value.length > 2 ? textOf(value[2]) : undefined;
  if (id === null || (value.length > 2 && id === undefined))
    throw fail(`has a ${which} whose id is not a string`);
  const context = { blankHost: source.blankHost ?? source.node.host, addressMap: source.addressMap };
  const address = nodeAddress(host, port, context);
  return { id, address, role: primary ? 'primary' : 'replica', health: 'online' };
}
