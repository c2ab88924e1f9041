// The SCAN family's shared parts (issue 3): argument lists, the `[cursor, elements]` reply, and the
// cursor loop behind the async iterators, which holds one page at a time and stops on abort.
// Keys, members, fields and values stay as the decoder delivered them, so with `returnBuffers` a
// binary key comes back byte for byte and can be passed on (issue 19 #10); the cursor is text.
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import type { RedisArgument } from './commands/caller.js';
import { asDouble, asString, asValue, type RedisValue, unexpected } from './commands/reply.js';

/** Options of HSCAN, SSCAN, ZSCAN and their iterators. */
export interface ScanOptions {
  /** MATCH: only elements matching this glob pattern (filtered after the fetch, per page). */
  match?: RedisArgument | undefined;
  /** COUNT: a hint of how much work one call does (Redis default 10). A positive integer. */
  count?: number | undefined;
  /** Stops the iteration: the pending call and the iterator reject with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Reply deadline of each call, ms (overrides `commandTimeout`). */
  timeout?: number | undefined;
}

/** Options of SCAN and `scanIterator`: ScanOptions plus TYPE. */
export interface KeyScanOptions extends ScanOptions {
  /** TYPE: only keys of this type (`string`, `hash`, `zset`, …). */
  type?: string | undefined;
}

/** One call's worth: the cursor to continue from (`'0'` when done) and what this call returned. */
export interface ScanPage<T> {
  cursor: string;
  items: T[];
}

/** The arguments of `SCAN cursor …` or `HSCAN key cursor …`. */
export function scanArguments(
  head: readonly RespArgument[],
  cursor: string | number | bigint,
  options: KeyScanOptions | undefined,
): RespArgument[] {
  const args: RespArgument[] = [...head, String(cursor)];
  if (options === undefined) return args;
  if (options.match !== undefined) args.push('MATCH', options.match);
  if (options.count !== undefined) {
    if (!Number.isInteger(options.count) || options.count < 1) {
      throw new TypeError(`count must be a positive integer, got ${String(options.count)}`);
    }
    args.push('COUNT', options.count);
  }
  if (options.type !== undefined) args.push('TYPE', options.type);
  return args;
}

/** Splits a SCAN-family reply into its cursor and its flat element list. */
export function scanReply(reply: RespValue): { cursor: string; elements: RespValue[] } {
  if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) {
    throw unexpected(reply, 'a [cursor, elements] pair');
  }
  return { cursor: asString(reply[0]!), elements: reply[1] };
}

/** SCAN, SSCAN: keys or members. */
export function valuePage(reply: RespValue): ScanPage<RedisValue> {
  const { cursor, elements } = scanReply(reply);
  return { cursor, items: elements.map(asValue) };
}

/** HSCAN: field, value, field, value… as `[field, value]` pairs. */
export function fieldValuePage(reply: RespValue): ScanPage<[RedisValue, RedisValue]> {
  return pairPage(reply, asValue);
}

/** ZSCAN: member, score, member, score… as `[member, score]` pairs. */
export function memberScorePage(reply: RespValue): ScanPage<[RedisValue, number]> {
  return pairPage(reply, asDouble);
}

function pairPage<S>(reply: RespValue, second: (value: RespValue) => S): ScanPage<[RedisValue, S]> {
  const { cursor, elements } = scanReply(reply);
  const items: [RedisValue, S][] = [];
  for (let i = 0; i + 1 < elements.length; i += 2) {
    items.push([asValue(elements[i]!), second(elements[i + 1]!)]);
  }
  return { cursor, items };
}

/**
 * Calls `fetch` from cursor 0 until the server returns cursor 0, yielding each page's items before
 * asking for the next, so at most one page is held. Redis may return an element more than once
 * (SCAN guarantees only that elements present throughout are returned at least once).
 */
export async function* iterateCursor<T>(
  fetch: (cursor: string) => Promise<ScanPage<T>>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T, void, undefined> {
  let cursor = '0';
  do {
    signal?.throwIfAborted();
    const page = await fetch(cursor);
    cursor = page.cursor;
    for (const item of page.items) {
      yield item;
      signal?.throwIfAborted();
    }
  } while (cursor !== '0');
}
