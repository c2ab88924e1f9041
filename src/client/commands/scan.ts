// The SCAN family: one call at a time (`scan`, `hscan`, `sscan`, `zscan`, each `{ cursor, … }`) and
// async iterators that walk the cursor to the end (`scanIterator`, …). Shared parts: ../scan.ts.
// `V` is how data arrives: strings, or Buffers with `returnBuffers` (see RedisValue in ./reply.ts).
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import {
  fieldValuePage,
  iterateCursor,
  type KeyScanOptions,
  memberScorePage,
  type ScanOptions,
  type ScanPage,
  scanArguments,
  valuePage,
} from '../scan.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import type { RedisValue } from './reply.js';

/** A cursor as Redis sends it (decimal text, up to 2^64 - 1), or a number for the first call. */
export type ScanCursor = string | number | bigint;

/** One SCAN call's answer. */
export interface KeyScanPage<V> {
  /** Where the next call continues; `'0'` when the walk is done. */
  cursor: string;
  /** The keys of this page (possibly none, possibly a key seen before). */
  keys: V[];
}

/** One HSCAN call's answer. */
export interface HashScanPage<V> {
  /** Where the next call continues; `'0'` when the walk is done. */
  cursor: string;
  /** `[field, value]` pairs of this page. */
  entries: [V, V][];
}

/** One SSCAN call's answer. */
export interface SetScanPage<V> {
  /** Where the next call continues; `'0'` when the walk is done. */
  cursor: string;
  /** Members of this page. */
  members: V[];
}

/** One ZSCAN call's answer. */
export interface SortedSetScanPage<V> {
  /** Where the next call continues; `'0'` when the walk is done. */
  cursor: string;
  /** `[member, score]` pairs of this page. */
  entries: [V, number][];
}

/** The SCAN family: one page per call, or an async iterator over every page. */
export interface ScanCommands<V extends RedisValue = string> {
  /** SCAN: one page of keys and the cursor to continue from (`'0'` when the walk is done). */
  scan(cursor: ScanCursor, options?: KeyScanOptions): Promise<KeyScanPage<V>>;
  /** HSCAN: one page of `[field, value]` pairs. */
  hscan(key: RedisArgument, cursor: ScanCursor, options?: ScanOptions): Promise<HashScanPage<V>>;
  /** SSCAN: one page of members. */
  sscan(key: RedisArgument, cursor: ScanCursor, options?: ScanOptions): Promise<SetScanPage<V>>;
  /** ZSCAN: one page of `[member, score]` pairs. */
  zscan(key: RedisArgument, cursor: ScanCursor, options?: ScanOptions): Promise<SortedSetScanPage<V>>;
  /**
   * Every key, one SCAN page at a time. A key may come twice (SCAN's guarantee is at least once for
   * keys present throughout); aborting `options.signal` rejects the pending step with its reason.
   */
  scanIterator(options?: KeyScanOptions): AsyncGenerator<V, void, undefined>;
  /** Every `[field, value]` of a hash, one HSCAN page at a time. */
  hscanIterator(key: RedisArgument, options?: ScanOptions): AsyncGenerator<[V, V], void, undefined>;
  /** Every member of a set, one SSCAN page at a time. */
  sscanIterator(key: RedisArgument, options?: ScanOptions): AsyncGenerator<V, void, undefined>;
  /** Every `[member, score]` of a sorted set, one ZSCAN page at a time. */
  zscanIterator(key: RedisArgument, options?: ScanOptions): AsyncGenerator<[V, number], void, undefined>;
}

/** One call: the arguments are checked before anything is sent. */
function page<T>(
  caller: CommandCaller,
  head: RedisArgument[],
  cursor: ScanCursor,
  options: KeyScanOptions | undefined,
  parse: (reply: RespValue) => ScanPage<T>,
): Promise<ScanPage<T>> {
  let args: RespArgument[];
  try {
    args = scanArguments(head, cursor, options);
  } catch (error) {
    return Promise.reject(error);
  }
  return caller.call(args, parse, options);
}

export const scanCommands: ThisType<CommandCaller> & ScanCommands<RedisValue> = {
  async scan(cursor, options) {
    const { cursor: next, items } = await page(this, ['SCAN'], cursor, options, valuePage);
    return { cursor: next, keys: items };
  },
  async hscan(key, cursor, options) {
    const { cursor: next, items } = await page(this, ['HSCAN', key], cursor, options, fieldValuePage);
    return { cursor: next, entries: items };
  },
  async sscan(key, cursor, options) {
    const { cursor: next, items } = await page(this, ['SSCAN', key], cursor, options, valuePage);
    return { cursor: next, members: items };
  },
  async zscan(key, cursor, options) {
    const { cursor: next, items } = await page(this, ['ZSCAN', key], cursor, options, memberScorePage);
    return { cursor: next, entries: items };
  },
  scanIterator(options) {
    return iterateCursor((cursor) => page(this, ['SCAN'], cursor, options, valuePage), options?.signal);
  },
  hscanIterator(key, options) {
    return iterateCursor(
      (cursor) => page(this, ['HSCAN', key], cursor, options, fieldValuePage),
      options?.signal,
    );
  },
  sscanIterator(key, options) {
    return iterateCursor((cursor) => page(this, ['SSCAN', key], cursor, options, valuePage), options?.signal);
  },
  zscanIterator(key, options) {
    return iterateCursor(
      (cursor) => page(this, ['ZSCAN', key], cursor, options, memberScorePage),
      options?.signal,
    );
  },
};
