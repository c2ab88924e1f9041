// Stream consumer groups: XGROUP CREATE/DESTROY/CREATECONSUMER/DELCONSUMER, XREADGROUP, XACK and
// the XPENDING summary.
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import type { CommandOptions } from '../../transport/command.js';
import { checkOptionKeys, flagOption, integerOption } from './arguments.js';
import { itemsCall } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import {
  asBoolean,
  asInteger,
  asNullableString,
  asOk,
  asRecord,
  asString,
  elements,
  type RedisValue,
  unexpected,
} from './reply.js';
import {
  asStreamReads,
  pushReadOptions,
  pushStreams,
  type StreamOffset,
  type StreamRead,
  streamEntries,
} from './streams.js';

/**
 * An entry read from a group. Reading the group's history (an ID other than `'>'`) gives null
 * fields for an entry that is still pending but was deleted from the stream.
 */
export interface GroupStreamEntry<V> {
  /** The entry ID (`1700000000000-0`). */
  id: string;
  /** Its field-value pairs; `null` for a pending entry deleted since it was delivered. */
  fields: Record<string, V> | null;
}

export interface XGroupCreateOptions extends CommandOptions {
  /** Create the stream when it does not exist. */
  MKSTREAM?: boolean;
  /** The group's entries-read counter (Redis 7), for lag reporting. */
  ENTRIESREAD?: number;
}

export interface XReadGroupOptions extends CommandOptions {
  /** COUNT: at most this many entries per stream. */
  COUNT?: number;
  /** Wait up to this many milliseconds (0 = forever); runs on a dedicated connection. */
  BLOCK?: number;
  /** Do not add the entries read to the pending list. */
  NOACK?: boolean;
}

/** XPENDING's summary form. */
export interface PendingSummary {
  /** Entries delivered and not yet acknowledged. */
  count: number;
  /** Lowest and highest pending IDs; null when nothing is pending. */
  minId: string | null;
  /** The greatest pending ID; `null` when none is pending. */
  maxId: string | null;
  /** Consumers with pending entries, and how many each has. */
  consumers: {
    /** The consumer's name. */
    name: string;
    /** Its entries delivered and not acknowledged. */
    pending: number;
  }[];
}

export interface StreamGroupCommands<V extends RedisValue = string> {
  /** XGROUP CREATE: `'OK'`; `id` is where the group starts (`'$'` new entries only, `'0'` all). */
  xgroupCreate(
    key: RedisArgument,
    group: RedisArgument,
    id: string,
    options?: XGroupCreateOptions,
  ): Promise<'OK'>;
  /** XGROUP DESTROY: true when the group existed. */
  xgroupDestroy(key: RedisArgument, group: RedisArgument, options?: CommandOptions): Promise<boolean>;
  /** XGROUP CREATECONSUMER: true when the consumer was created (false: it existed). */
  xgroupCreateConsumer(
    key: RedisArgument,
    group: RedisArgument,
    consumer: RedisArgument,
    options?: CommandOptions,
  ): Promise<boolean>;
  /** XGROUP DELCONSUMER: how many pending entries the deleted consumer had. */
  xgroupDelConsumer(
    key: RedisArgument,
    group: RedisArgument,
    consumer: RedisArgument,
    options?: CommandOptions,
  ): Promise<number>;
  /**
   * XREADGROUP: entries for `consumer` per stream (`id` `'>'` for new ones, else its pending
   * history), as in `xread`; null when there were none (after BLOCK ms, if given).
   */
  xreadgroup(
    group: RedisArgument,
    consumer: RedisArgument,
    streams: StreamOffset | readonly StreamOffset[],
    options?: XReadGroupOptions,
  ): Promise<StreamRead<V, GroupStreamEntry<V>>[] | null>;
  /** XACK: how many of the IDs were acknowledged (removed from the pending list). */
  xack(
    key: RedisArgument,
    group: RedisArgument,
    ids: string | readonly string[],
    options?: CommandOptions,
  ): Promise<number>;
  /** XPENDING key group: the summary of the group's pending entries. */
  xpending(key: RedisArgument, group: RedisArgument, options?: CommandOptions): Promise<PendingSummary>;
}

/** Fields of a group entry: null for one still pending but deleted from the stream. */
function asNullableRecord(fields: RespValue): Record<string, RedisValue> | null {
  return fields === null ? null : asRecord(fields);
}

function asGroupEntries(reply: RespValue): GroupStreamEntry<RedisValue>[] {
  return streamEntries(reply, asNullableRecord);
}

function asXReadGroup(reply: RespValue) {
  return asStreamReads(reply, asGroupEntries);
}

function asPendingSummary(reply: RespValue): PendingSummary {
  const [count, minId, maxId, consumers] = elements(reply);
  if (count === undefined || minId === undefined || maxId === undefined || consumers === undefined) {
    throw unexpected(reply, '[count, min, max, consumers]');
  }
  return {
    count: asInteger(count),
    minId: asNullableString(minId),
    maxId: asNullableString(maxId),
    consumers:
      consumers === null
        ? []
        : elements(consumers).map((item) => {
            const [name, pending] = elements(item);
            if (name === undefined || pending === undefined) throw unexpected(item, '[name, count]');
            // The count is a bulk string in both protocols.
            return { name: asString(name), pending: Number(asString(pending)) };
          }),
  };
}

export const streamGroupCommands: ThisType<CommandCaller> & StreamGroupCommands<RedisValue> = {
  xgroupCreate(key, group, id, options) {
    const args: RespArgument[] = ['XGROUP', 'CREATE', key, group, id];
    if (options !== undefined) {
      try {
        checkOptionKeys('xgroupCreate', options, ['MKSTREAM', 'ENTRIESREAD']);
        if (flagOption('xgroupCreate', 'MKSTREAM', options.MKSTREAM)) args.push('MKSTREAM');
        if (options.ENTRIESREAD !== undefined) {
          args.push('ENTRIESREAD', integerOption('xgroupCreate', 'ENTRIESREAD', options.ENTRIESREAD, 0));
        }
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.call(args, asOk, options);
  },
  xgroupDestroy(key, group, options) {
    return this.call(['XGROUP', 'DESTROY', key, group], asBoolean, options);
  },
  xgroupCreateConsumer(key, group, consumer, options) {
    return this.call(['XGROUP', 'CREATECONSUMER', key, group, consumer], asBoolean, options);
  },
  xgroupDelConsumer(key, group, consumer, options) {
    return this.call(['XGROUP', 'DELCONSUMER', key, group, consumer], asInteger, options);
  },
  xreadgroup(group, consumer, streams, options) {
    const args: RespArgument[] = ['XREADGROUP', 'GROUP', group, consumer];
    let flags = 0;
    try {
      if (options !== undefined) {
        checkOptionKeys('xreadgroup', options, ['COUNT', 'BLOCK', 'NOACK']);
        flags = pushReadOptions('xreadgroup', args, options);
        if (flagOption('xreadgroup', 'NOACK', options.NOACK)) args.push('NOACK');
      }
      pushStreams('xreadgroup', args, streams);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asXReadGroup, options, flags);
  },
  xack(key, group, ids, options) {
    return itemsCall(this, ['XACK', key, group], ids, 'ids', asInteger, options);
  },
  xpending(key, group, options) {
    return this.call(['XPENDING', key, group], asPendingSummary, options);
  },
};
