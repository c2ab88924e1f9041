// Reply conversions shared by the typed helpers. Each throws a TypeError when the reply does not
// have the documented shape, which rejects the command (the connection is unaffected). RESP2 and
// RESP3 forms of one reply convert to the same value (PROTOCOL.md §1.1 "RESP2 differences").
import type { RespValue } from '../../resp/types.js';

/**
 * User data as it arrives: keys, values, members, fields. A `string` (UTF-8) by default; a
 * `Buffer` on a client with `returnBuffers: true`, so binary data round-trips. The typed
 * families take it as their type parameter `V`.
 */
export type RedisValue = string | Buffer;

export function asString(reply: RespValue): string {
  if (typeof reply === 'string') return reply;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  throw unexpected(reply, 'a string');
}

export function asNullableString(reply: RespValue): string | null {
  return reply === null ? null : asString(reply);
}

/** A data string, left as the decoder delivered it (string, or Buffer with `returnBuffers`). */
export function asValue(reply: RespValue): RedisValue {
  if (typeof reply === 'string' || Buffer.isBuffer(reply)) return reply;
  throw unexpected(reply, 'a string');
}

export function asNullableValue(reply: RespValue): RedisValue | null {
  return reply === null ? null : asValue(reply);
}

/** An array (or RESP3 set) of data strings; a null reply (nothing there) as `[]`. */
export function asValues(reply: RespValue): RedisValue[] {
  if (reply === null) return [];
  return elements(reply).map(asValue);
}

/** An array whose slots may be null (MGET, HMGET). */
export function asNullableValues(reply: RespValue): (RedisValue | null)[] {
  return elements(reply).map(asNullableValue);
}

/** The elements of an array or a RESP3 set. */
export function elements(reply: RespValue): RespValue[] {
  if (Array.isArray(reply)) return reply;
  if (reply instanceof Set) return [...reply];
  throw unexpected(reply, 'an array');
}

/** `'OK'`, the status reply of commands that cannot fail but with an error. */
export function asOk(reply: RespValue): 'OK' {
  if (asString(reply) === 'OK') return 'OK';
  throw unexpected(reply, "'OK'");
}

/** `'OK'`, or null when a condition (NX, XX) kept the command from running. */
export function asNullableOk(reply: RespValue): 'OK' | null {
  return reply === null ? null : asOk(reply);
}

/** An integer reply that stays within the safe-integer range (lengths, counts, TTLs). */
export function asInteger(reply: RespValue): number {
  if (typeof reply === 'number') return reply;
  throw unexpected(reply, 'an integer');
}

export function asNullableInteger(reply: RespValue): number | null {
  return reply === null ? null : asInteger(reply);
}

/** An integer that may outgrow doubles (a counter): a `bigint` beyond ±(2^53 - 1). */
export function asCounter(reply: RespValue): number | bigint {
  if (typeof reply === 'number' || typeof reply === 'bigint') return reply;
  throw unexpected(reply, 'an integer');
}

/** `:1`/`:0` (RESP2, and most commands in RESP3) or a RESP3 boolean. */
export function asBoolean(reply: RespValue): boolean {
  if (reply === 1 || reply === true) return true;
  if (reply === 0 || reply === false) return false;
  throw unexpected(reply, '0 or 1');
}

export function asBooleans(reply: RespValue): boolean[] {
  return elements(reply).map(asBoolean);
}

/**
 * A RESP3 double, or its RESP2 form: a bulk string such as `3.5`, `inf`, `-inf` or `nan`
 * (also INCRBYFLOAT's bulk string in both protocols).
 */
export function asDouble(reply: RespValue): number {
  if (typeof reply === 'number') return reply;
  if (typeof reply === 'string' || Buffer.isBuffer(reply)) {
    const value = parseDouble(typeof reply === 'string' ? reply : reply.toString('latin1'));
    if (value !== undefined) return value;
  }
  throw unexpected(reply, 'a number');
}

export function asNullableDouble(reply: RespValue): number | null {
  return reply === null ? null : asDouble(reply);
}

export function asNullableDoubles(reply: RespValue): (number | null)[] {
  return elements(reply).map(asNullableDouble);
}

/** Redis's text for a double: decimal or exponent form, `inf`/`-inf`/`+inf`, `nan` in any case. */
function parseDouble(text: string): number | undefined {
  const lower = text.toLowerCase();
  if (lower === 'inf' || lower === '+inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  if (lower === 'nan' || lower === '-nan') return Number.NaN;
  const value = Number(text);
  return text.trim() === '' || Number.isNaN(value) ? undefined : value;
}

/**
 * Field/value pairs as a plain object: from a RESP3 map, or a RESP2 flat array (HGETALL,
 * CONFIG GET, stream entry fields). Field names become UTF-8 strings; values stay data strings.
 * A repeated field keeps its last value; a field named `__proto__` is an ordinary own property.
 */
export function asRecord(reply: RespValue): Record<string, RedisValue> {
  const record: Record<string, RedisValue> = {};
  if (reply instanceof Map) {
    for (const [field, value] of reply) setField(record, asString(field), asValue(value));
    return record;
  }
  const flat = elements(reply);
  if (flat.length % 2 !== 0) throw unexpected(reply, 'an even number of elements');
  for (let i = 0; i < flat.length; i += 2) setField(record, asString(flat[i]!), asValue(flat[i + 1]!));
  return record;
}

function setField(record: Record<string, RedisValue>, field: string, value: RedisValue): void {
  if (field === '__proto__') {
    Object.defineProperty(record, field, { value, enumerable: true, writable: true, configurable: true });
  } else record[field] = value;
}

/**
 * Pairs that RESP3 nests (`[[a, b], [c, d]]`) and RESP2 flattens (`[a, b, c, d]`), such as
 * ZRANGE WITHSCORES, ZPOPMIN with a count and HRANDFIELD WITHVALUES. Also accepts one flat pair
 * from RESP3 (ZPOPMIN without a count).
 */
export function pairs(reply: RespValue): [RespValue, RespValue][] {
  const items = elements(reply);
  const result: [RespValue, RespValue][] = [];
  if (items.length > 0 && Array.isArray(items[0])) {
    for (const item of items) {
      const pair = elements(item);
      if (pair.length !== 2) throw unexpected(item, 'a pair');
      result.push([pair[0]!, pair[1]!]);
    }
    return result;
  }
  if (items.length % 2 !== 0) throw unexpected(reply, 'an even number of elements');
  for (let i = 0; i < items.length; i += 2) result.push([items[i]!, items[i + 1]!]);
  return result;
}

export function unexpected(reply: RespValue, expected: string): TypeError {
  const shape = reply === null ? 'null' : Array.isArray(reply) ? 'an array' : typeof reply;
  return new TypeError(`unexpected reply: ${shape}, expected ${expected}`);
}
