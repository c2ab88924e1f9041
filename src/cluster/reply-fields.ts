// Reading the values of a topology reply in either protocol: RESP3 maps or RESP2 flat key/value
// arrays (PROTOCOL.md §2.4, observed on 7.0.15), strings as `string` or, with `returnBuffers`, as
// `Buffer`. A reply of the wrong shape is a RespireProtocolError naming what was wrong.

import { endpointKey } from '../client/endpoint.js';
import { type RespireEndpoint, RespireProtocolError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { SLOT_COUNT } from './key-slot.js';
import type { AddressMap } from './node-address.js';

/** The node a topology reply came from, and how the addresses in it are read. */
export interface TopologySource {
  /** The node asked, as dialled; errors name it. */
  readonly node: RespireEndpoint;
  /**
   * What a blank announced host stands for: the host the asked node is known by (its announced
   * host, or a seed's configured host). Default `node.host`.
   */
  readonly blankHost?: string | undefined;
  /** Connections use TLS: a node's `tls-port` is the one to dial. Default false. */
  readonly tls?: boolean | undefined;
  readonly addressMap?: AddressMap | undefined;
}

/**
 * A topology reply that cannot be read. The frame itself was well formed (the decoder checked
 * that), so the connection is fine: the caller treats this node's answer as unusable and asks
 * another node, as for any failed refresh.
 */
export function malformedReply(command: string, source: TopologySource, what: string): RespireProtocolError {
  return new RespireProtocolError(`${command} reply from ${endpointKey(source.node)} is malformed: ${what}`, {
    endpoint: source.node,
  });
}

/** A string field's text; `null` for a null; `undefined` for any other type. */
export function textOf(value: RespValue | undefined): string | null | undefined {
  if (typeof value === 'string' || value === null) return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

/** A non-negative integer field (a RESP integer, or its decimal text); `undefined` otherwise. */
export function integerOf(value: RespValue | undefined): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const text = textOf(value);
  if (typeof text === 'string' && /^\d{1,15}$/.test(text)) return Number(text);
  return undefined;
}

/**
 * The fields of a RESP3 map or RESP2 flat key/value array, by name. Keys that are not strings are
 * left out, and so are fields the caller does not know: later servers add fields.
 */
export function fieldsOf(value: RespValue): Map<string, RespValue> | undefined {
  const fields = new Map<string, RespValue>();
  if (value instanceof Map) {
    for (const [key, field] of value) {
      const name = textOf(key);
      if (typeof name === 'string') fields.set(name, field);
    }
    return fields;
  }
  if (!Array.isArray(value) || value.length % 2 !== 0) return undefined;
  for (let i = 0; i < value.length; i += 2) {
    const name = textOf(value[i]);
    if (typeof name === 'string') fields.set(name, value[i + 1]!);
  }
  return fields;
}

/** Flat inclusive ranges, each within the slot space and not reversed. */
export function readRanges(values: readonly RespValue[], fail: (what: string) => Error): number[] {
  if (values.length % 2 !== 0) throw fail(`has an odd number of slot bounds (${values.length})`);
  const ranges = values.map((value) => integerOf(value) ?? Number.NaN);
  for (let i = 0; i < ranges.length; i += 2) {
    const start = ranges[i]!;
    const end = ranges[i + 1]!;
    if (!(start <= end && end < SLOT_COUNT)) {
      throw fail(`has the slot range ${String(values[i])}-${String(values[i + 1])}`);
    }
  }
  return ranges;
}
