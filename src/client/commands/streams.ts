// Stream basics: XADD, XLEN, XRANGE/XREVRANGE, XREAD, XDEL, XTRIM. Entries become `{ id, fields }`
// with fields as a plain object; XREAD's RESP3 map and RESP2 array become the same list of
// `{ key, entries }`. Consumer groups: ./stream-groups.ts.
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import { CommandFlags, type CommandOptions } from '../../transport/command.js';
import {
  checkExclusive,
  checkOptionKeys,
  flagOption,
  integerOption,
  pushPairs,
  type RedisPairs,
} from './arguments.js';
import { itemsCall } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import {
  asInteger,
  asNullableString,
  asRecord,
  asString,
  asValue,
  elements,
  type RedisValue,
  unexpected,
} from './reply.js';

/** A stream entry. A field repeated within one entry keeps its last value. */
export interface StreamEntry<V> {
  /** The entry ID (`1700000000000-0`). */
  id: string;
  /** Its field-value pairs. */
  fields: Record<string, V>;
}

/** The entries XREAD/XREADGROUP read from one stream. */
export interface StreamRead<V, E = StreamEntry<V>> {
  /** The stream read. */
  key: V;
  /** Its entries after the given ID. */
  entries: E[];
}

/** Trimming by length (MAXLEN) or by lowest ID (MINID); `~` with APPROXIMATE. */
export interface StreamTrimOptions extends CommandOptions {
  /** MAXLEN: keep at most this many entries. */
  MAXLEN?: number;
  /** MINID: drop entries with smaller IDs. */
  MINID?: string;
  /** Trim at whole macro nodes only (`~`): cheaper, may keep a few more entries. */
  APPROXIMATE?: boolean;
  /** With APPROXIMATE: evict at most this many entries in one call. */
  LIMIT?: number;
}

export interface XAddOptions extends StreamTrimOptions {
  /** Do not create a missing stream; the helper then resolves with null. */
  NOMKSTREAM?: boolean;
}

export interface XRangeOptions extends CommandOptions {
  /** COUNT: at most this many entries. */
  COUNT?: number;
}

export interface XReadOptions extends CommandOptions {
  /** At most this many entries per stream. */
  COUNT?: number;
  /** Wait up to this many milliseconds (0 = forever) for data; runs on a dedicated connection. */
  BLOCK?: number;
}

/** A stream to read and the ID to read after (`'$'` for new entries only, with BLOCK). */
export interface StreamOffset {
  /** The stream to read. */
  key: RedisArgument;
  /** Read entries after this ID (`$` for new entries only, `0` for all). */
  id: string;
}

export interface StreamCommands<V extends RedisValue = string> {
  /** XADD: the new entry's ID (`id` `'*'` lets the server choose), or null with NOMKSTREAM on a missing key. */
  xadd(key: RedisArgument, id: string, fields: RedisPairs, options?: XAddOptions): Promise<string | null>;
  /** XLEN: the number of entries; 0 for a missing key. */
  xlen(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** XRANGE: entries from `start` to `end` (`'-'`/`'+'` for the ends; `'('` prefix excludes). */
  xrange(key: RedisArgument, start: string, end: string, options?: XRangeOptions): Promise<StreamEntry<V>[]>;
  /** XREVRANGE: as `xrange`, newest first, from `end` down to `start`. */
  xrevrange(
    key: RedisArgument,
    end: string,
    start: string,
    options?: XRangeOptions,
  ): Promise<StreamEntry<V>[]>;
  /**
   * XREAD: for each stream with entries after its ID, `{ key, entries }` (streams without new
   * entries are left out); null when none has any (after BLOCK ms, if given).
   */
  xread(
    streams: StreamOffset | readonly StreamOffset[],
    options?: XReadOptions,
  ): Promise<StreamRead<V>[] | null>;
  /** XDEL: how many of the IDs were deleted. */
  xdel(key: RedisArgument, ids: string | readonly string[], options?: CommandOptions): Promise<number>;
  /** XTRIM: how many entries were evicted. MAXLEN or MINID is required. */
  xtrim(key: RedisArgument, options: StreamTrimOptions): Promise<number>;
}

/** `[id, fields]` entries (none for a null reply), their fields converted by `fieldsOf`. */
export function streamEntries<F>(
  reply: RespValue,
  fieldsOf: (fields: RespValue) => F,
): { id: string; fields: F }[] {
  if (reply === null) return [];
  return elements(reply).map((item) => {
    const [id, fields] = elements(item);
    if (id === undefined || fields === undefined) throw unexpected(item, '[id, fields]');
    return { id: asString(id), fields: fieldsOf(fields) };
  });
}

function asStreamEntries(reply: RespValue): StreamEntry<RedisValue>[] {
  return streamEntries(reply, asRecord);
}

/** XREAD/XREADGROUP: a RESP3 map or RESP2 array of `[key, entries]`, or null. */
export function asStreamReads<E>(
  reply: RespValue,
  entries: (reply: RespValue) => E[],
): StreamRead<RedisValue, E>[] | null {
  if (reply === null) return null;
  const reads: StreamRead<RedisValue, E>[] = [];
  if (reply instanceof Map) {
    for (const [key, items] of reply) reads.push({ key: asValue(key), entries: entries(items) });
    return reads;
  }
  for (const item of elements(reply)) {
    const [key, items] = elements(item);
    if (key === undefined || items === undefined) throw unexpected(item, '[key, entries]');
    reads.push({ key: asValue(key), entries: entries(items) });
  }
  return reads;
}

function asXRead(reply: RespValue) {
  return asStreamReads(reply, asStreamEntries);
}

/** `MAXLEN|MINID [~] threshold [LIMIT n]`, appended when a trim option is set. */
function pushTrim(helper: string, args: RespArgument[], options: StreamTrimOptions, required: boolean): void {
  checkExclusive(helper, options, ['MAXLEN', 'MINID']);
  const approximate = flagOption(helper, 'APPROXIMATE', options.APPROXIMATE);
  if (options.MAXLEN !== undefined) args.push('MAXLEN');
  else if (options.MINID !== undefined) args.push('MINID');
  else if (required) throw new TypeError(`${helper}: MAXLEN or MINID is required`);
  else if (options.LIMIT !== undefined || approximate)
    throw new TypeError(`${helper}: APPROXIMATE and LIMIT need MAXLEN or MINID`);
  else return;
  if (approximate) args.push('~');
  if (options.MAXLEN !== undefined) args.push(integerOption(helper, 'MAXLEN', options.MAXLEN, 0));
  else if (typeof options.MINID === 'string') args.push(options.MINID);
  else throw new TypeError(`${helper}: MINID must be a stream ID string`);
  if (options.LIMIT !== undefined) {
    if (!approximate) throw new TypeError(`${helper}: LIMIT needs APPROXIMATE`);
    args.push('LIMIT', integerOption(helper, 'LIMIT', options.LIMIT, 0));
  }
}

/**
 * `[COUNT n] [BLOCK ms]` of XREAD/XREADGROUP; answers the command flags: Blocking with BLOCK, so
 * that the read waits on a dedicated connection.
 */
export function pushReadOptions(helper: string, args: RespArgument[], options: XReadOptions): number {
  if (options.COUNT !== undefined) args.push('COUNT', integerOption(helper, 'COUNT', options.COUNT, 0));
  if (options.BLOCK === undefined) return 0;
  args.push('BLOCK', integerOption(helper, 'BLOCK', options.BLOCK, 0));
  return CommandFlags.Blocking;
}

/** `STREAMS key… id…` of XREAD/XREADGROUP. */
export function pushStreams(helper: string, args: RespArgument[], streams: unknown): void {
  const list = (Array.isArray(streams) ? streams : [streams]) as StreamOffset[];
  if (list.length === 0) throw new TypeError(`${helper}: streams must not be empty`);
  args.push('STREAMS');
  for (const stream of list) {
    if (stream === null || typeof stream !== 'object')
      throw new TypeError(`${helper}: streams are { key, id }`);
    args.push(stream.key);
  }
  for (const stream of list) args.push(stream.id);
}

const TRIM_OPTIONS = ['MAXLEN', 'MINID', 'APPROXIMATE', 'LIMIT'];

function rangeCall(
  caller: CommandCaller,
  name: string,
  key: RedisArgument,
  from: string,
  to: string,
  options?: XRangeOptions,
) {
  const args: RespArgument[] = [name, key, from, to];
  if (options !== undefined) {
    try {
      checkOptionKeys(name.toLowerCase(), options, ['COUNT']);
      if (options.COUNT !== undefined)
        args.push('COUNT', integerOption(name.toLowerCase(), 'COUNT', options.COUNT, 0));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return caller.call(args, asStreamEntries, options);
}

export const streamCommands: ThisType<CommandCaller> & StreamCommands<RedisValue> = {
  xadd(key, id, fields, options) {
    const args: RespArgument[] = ['XADD', key];
    try {
      if (options !== undefined) {
        checkOptionKeys('xadd', options, ['NOMKSTREAM', ...TRIM_OPTIONS]);
        if (flagOption('xadd', 'NOMKSTREAM', options.NOMKSTREAM)) args.push('NOMKSTREAM');
        pushTrim('xadd', args, options, false);
      }
      if (typeof id !== 'string' || id.length === 0)
        throw new TypeError("xadd: id must be '*' or an entry ID");
      args.push(id);
      pushPairs('xadd', args, fields);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asNullableString, options);
  },
  xlen(key, options) {
    return this.call(['XLEN', key], asInteger, options);
  },
  xrange(key, start, end, options) {
    return rangeCall(this, 'XRANGE', key, start, end, options);
  },
  xrevrange(key, end, start, options) {
    return rangeCall(this, 'XREVRANGE', key, end, start, options);
  },
  xread(streams, options) {
    const args: RespArgument[] = ['XREAD'];
    let flags = 0;
    try {
      if (options !== undefined) {
        checkOptionKeys('xread', options, ['COUNT', 'BLOCK']);
        flags = pushReadOptions('xread', args, options);
      }
      pushStreams('xread', args, streams);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asXRead, options, flags);
  },
  xdel(key, ids, options) {
    return itemsCall(this, ['XDEL', key], ids, 'ids', asInteger, options);
  },
  xtrim(key, options) {
    const args: RespArgument[] = ['XTRIM', key];
    try {
      checkOptionKeys('xtrim', options, TRIM_OPTIONS);
      pushTrim('xtrim', args, options, true);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asInteger, options);
  },
};
