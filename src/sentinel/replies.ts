// Reading what sentinels and data nodes answer during discovery (PROTOCOL.md §3, observed on
// 7.0.15), in RESP2 or RESP3: `SENTINEL GET-MASTER-ADDR-BY-NAME` (`[ip, port]` with the port as a
// bulk string, or null), `SENTINEL REPLICAS` / `SENTINEL SENTINELS` (a list of RESP3 maps or RESP2
// flat field/value arrays) and `ROLE`. Discovery connections never use `returnBuffers`, so strings
// are strings. A reply of the wrong shape is a RespireProtocolError naming the command and node.
import { type RespireEndpoint, RespireProtocolError } from '../errors.js';
import type { RespValue } from '../resp/types.js';

/** What `ROLE` says a data node is; `other` for anything else (`sentinel`, unknown roles). */
export type DataRole = 'master' | 'slave' | 'other';

/** Flags that make a listed replica unusable (PROTOCOL.md §3.6; redis-py's filter_slaves). */
const UNUSABLE_FLAGS = ['s_down', 'o_down', 'disconnected'];

/** The primary's address, or null when this sentinel does not know the service. */
export function readPrimaryAddress(reply: RespValue, sentinel: RespireEndpoint): RespireEndpoint | null {
  if (reply === null) return null;
  if (Array.isArray(reply) && reply.length === 2) {
    const endpoint = endpointOf(reply[0], reply[1]);
    if (endpoint !== undefined) return endpoint;
  }
  throw malformed('SENTINEL GET-MASTER-ADDR-BY-NAME', sentinel, 'is not [ip, port] or null');
}

/** The usable instances of a `SENTINEL REPLICAS` or `SENTINEL SENTINELS` reply. */
export interface Instances {
  /** Entries not flagged s_down, o_down or disconnected, with an address. */
  readonly usable: RespireEndpoint[];
  /**
   * Entries left out only for `disconnected`: the sentinel has not reached them yet (it recreates
   * every replica entry at a switch), so they may become usable without any event.
   */
  readonly connecting: number;
}

/** Reads a list of instances; entries flagged s_down, o_down or disconnected are left out. */
export function readInstances(command: string, reply: RespValue, sentinel: RespireEndpoint): Instances {
  if (!Array.isArray(reply)) throw malformed(command, sentinel, 'is not an array');
  const usable: RespireEndpoint[] = [];
  let connecting = 0;
  for (const entry of reply) {
    const fields = fieldsOf(entry);
    if (fields === undefined) throw malformed(command, sentinel, 'has an entry that is not a map');
    const flags = String(fields.get('flags') ?? '').split(',');
    if (flags.some((flag) => UNUSABLE_FLAGS.includes(flag))) {
      if (!flags.includes('s_down') && !flags.includes('o_down')) connecting++;
      continue;
    }
    const endpoint = endpointOf(fields.get('ip'), fields.get('port'));
    if (endpoint !== undefined) usable.push(endpoint);
  }
  return { usable, connecting };
}

/** The first element of a `ROLE` reply. */
export function readRole(reply: RespValue, node: RespireEndpoint): DataRole {
  const role = Array.isArray(reply) ? reply[0] : undefined;
  if (typeof role !== 'string') throw malformed('ROLE', node, 'does not start with a role name');
  return role === 'master' || role === 'slave' ? role : 'other';
}

/** An address from an ip field and a port field (a bulk string or an integer), if both are valid. */
export function endpointOf(
  ip: RespValue | undefined,
  port: RespValue | undefined,
): RespireEndpoint | undefined {
  const number =
    typeof port === 'number' ? port : typeof port === 'string' && /^\d{1,5}$/.test(port) ? Number(port) : 0;
  if (typeof ip !== 'string' || ip.length === 0 || !(number >= 1 && number <= 65535)) return undefined;
  return { host: ip, port: number };
}

/** A RESP3 map or a RESP2 flat field/value array by field name; undefined for anything else. */
function fieldsOf(value: RespValue): Map<string, RespValue> | undefined {
  if (value instanceof Map) {
    const fields = new Map<string, RespValue>();
    for (const [key, field] of value) if (typeof key === 'string') fields.set(key, field);
    return fields;
  }
  if (!Array.isArray(value) || value.length % 2 !== 0) return undefined;
  const fields = new Map<string, RespValue>();
  for (let i = 0; i < value.length; i += 2) {
    const key = value[i];
    if (typeof key === 'string') fields.set(key, value[i + 1]!);
  }
  return fields;
}

function malformed(command: string, node: RespireEndpoint, what: string): RespireProtocolError {
  return new RespireProtocolError(`${command} reply from ${node.host}:${node.port} ${what}`, {
    endpoint: node,
  });
}
