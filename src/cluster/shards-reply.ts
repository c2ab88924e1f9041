// A `CLUSTER SHARDS` reply (Redis 7.0+, PROTOCOL.md §2.4) read into a topology: an array of shards,
// each `{ slots: [start, end, …], nodes: [{ id, port, tls-port, ip, endpoint, role, health, … }] }`,
// maps in RESP3 and flat key/value arrays in RESP2.
import type { RespValue } from '../resp/types.js';
import { nodeAddress } from './node-address.js';
import {
  fieldsOf,
  integerOf,
  malformedReply,
  readRanges,
  type TopologySource,
  textOf,
} from './reply-fields.js';
import {
  type AnnouncedNode,
  type AnnouncedShard,
  buildTopology,
  type ClusterRole,
  type ClusterTopology,
  type NodeHealth,
} from './topology.js';

const COMMAND = 'CLUSTER SHARDS';

/**
 * The topology a `CLUSTER SHARDS` reply describes (rules: topology.ts `buildTopology`). A node's
 * host is its `endpoint` (`ip` when a server sends no `endpoint`); its port is `port`, or with TLS
 * `tls-port` (`port` when there is none). A node without a port to dial, or with endpoint `?`, is
 * left out. Fields Respire does not know are ignored.
 *
 * @throws RespireProtocolError (`endpoint`: the node asked) when the reply does not have this shape.
 * @throws RespireConfigurationError when `addressMap` throws or returns no endpoint.
 */
export function parseShardsReply(reply: RespValue, source: TopologySource): ClusterTopology {
  if (!Array.isArray(reply)) throw malformedReply(COMMAND, source, 'not an array of shards');
  const shards = reply.map((shard, index) => readShard(shard, index, source));
  return buildTopology(shards);
}

function readShard(value: RespValue, index: number, source: TopologySource): AnnouncedShard {
  const fail = (what: string) => malformedReply(COMMAND, source, `shard ${index} ${what}`);
  const fields = fieldsOf(value);
  if (fields === undefined) throw fail('is not a map');
  const slots = fields.get('slots');
  const nodes = fields.get('nodes');
  if (!Array.isArray(slots)) throw fail('has no "slots" array');
  if (!Array.isArray(nodes)) throw fail('has no "nodes" array');
  return {
    ranges: readRanges(slots, fail),
    nodes: nodes.map((node, at) => readNode(node, at, source, fail)),
  };
}

function readNode(
  value: RespValue,
  at: number,
  source: TopologySource,
  fail: (what: string) => Error,
): AnnouncedNode {
  const fields = fieldsOf(value);
  if (fields === undefined) throw fail(`node ${at} is not a map`);
  const id = textOf(fields.get('id'));
  if (typeof id !== 'string') throw fail(`node ${at} has no "id"`);
  const nodeFail = (what: string) => fail(`node ${id} ${what}`);
  const role = readRole(fields.get('role'), nodeFail);
  const health = readHealth(fields.get('health'), nodeFail);
  const host = textOf(fields.has('endpoint') ? fields.get('endpoint') : fields.get('ip'));
  if (host === undefined) throw nodeFail('has an endpoint that is not a string');
  const port = readPort(fields, source.tls === true, nodeFail);
  const context = { blankHost: source.blankHost ?? source.node.host, addressMap: source.addressMap };
  return { id, address: nodeAddress(host, port, context), role, health };
}

/** The port to dial; 0 when the node announces none for this transport (then it is left out). */
function readPort(fields: Map<string, RespValue>, tls: boolean, fail: (what: string) => Error): number {
  const name = tls && fields.has('tls-port') ? 'tls-port' : 'port';
  if (!fields.has(name)) return 0;
  const port = integerOf(fields.get(name));
  if (port === undefined || port > 65535) throw fail(`has the ${name} ${String(fields.get(name))}`);
  return port;
}

function readRole(value: RespValue | undefined, fail: (what: string) => Error): ClusterRole {
  const role = textOf(value);
  if (role === 'master') return 'primary';
  if (role === 'replica' || role === 'slave') return 'replica';
  throw fail(`has the role ${String(role)}`);
}

/** A health Respire does not know is not trusted with traffic; no health at all is `online`. */
function readHealth(value: RespValue | undefined, fail: (what: string) => Error): NodeHealth {
  if (value === undefined) return 'online';
  const health = textOf(value);
  if (typeof health !== 'string') throw fail('has a health that is not a string');
  if (health === 'online') return 'online';
  if (health === 'loading') return 'loading';
  return 'failed';
}
