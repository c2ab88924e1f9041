// Hash commands. HGETALL becomes a plain object from RESP3's map and RESP2's flat array alike.
import type { RespValue } from '../../resp/types.js';
import type { CommandOptions } from '../../transport/command.js';
import {
  integerArgument,
  numberArgument,
  pushPairs,
  type RedisInput,
  type RedisKeys,
  type RedisPairs,
} from './arguments.js';
import { countedCall, itemsCall, SAMPLED_VALUES } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import {
  asBoolean,
  asCounter,
  asDouble,
  asInteger,
  asNullableValue,
  asNullableValues,
  asRecord,
  asValue,
  asValues,
  pairs,
  type RedisValue,
} from './reply.js';

export interface HashCommands<V extends RedisValue = string> {
  /** HSET field value: how many fields were added (0 when the field existed and was updated). */
  hset(
    key: RedisArgument,
    field: RedisArgument,
    value: RedisInput,
    options?: CommandOptions,
  ): Promise<number>;
  /** HSET with an object, a Map or `[field, value]` pairs: how many fields were added. */
  hset(key: RedisArgument, fields: RedisPairs, options?: CommandOptions): Promise<number>;
  /** HSETNX: true when the field was set (it did not exist). */
  hsetnx(
    key: RedisArgument,
    field: RedisArgument,
    value: RedisInput,
    options?: CommandOptions,
  ): Promise<boolean>;
  /** HGET: the field's value, or null when the field or the key is missing. */
  hget(key: RedisArgument, field: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /** HMGET: one value per field, in order; null for missing ones. */
  hmget(key: RedisArgument, fields: RedisKeys, options?: CommandOptions): Promise<(V | null)[]>;
  /**
   * HGETALL: every field and value as a plain object (`{}` for a missing key), from a RESP3 map
   * or a RESP2 flat array. Field names are UTF-8 strings even with `returnBuffers`.
   */
  hgetall(key: RedisArgument, options?: CommandOptions): Promise<Record<string, V>>;
  /** HDEL: how many of the fields were removed. */
  hdel(key: RedisArgument, fields: RedisKeys, options?: CommandOptions): Promise<number>;
  /** HEXISTS: whether the field exists. */
  hexists(key: RedisArgument, field: RedisArgument, options?: CommandOptions): Promise<boolean>;
  /** HINCRBY: the field's new value; a bigint beyond ±(2^53 - 1). */
  hincrby(
    key: RedisArgument,
    field: RedisArgument,
    increment: number | bigint,
    options?: CommandOptions,
  ): Promise<number | bigint>;
  /** HINCRBYFLOAT: the field's new value (a bulk string in both protocols; parsed). */
  hincrbyfloat(
    key: RedisArgument,
    field: RedisArgument,
    increment: number,
    options?: CommandOptions,
  ): Promise<number>;
  /** HKEYS: the field names (`[]` for a missing key). */
  hkeys(key: RedisArgument, options?: CommandOptions): Promise<V[]>;
  /** HVALS: the values (`[]` for a missing key). */
  hvals(key: RedisArgument, options?: CommandOptions): Promise<V[]>;
  /** HLEN: the number of fields. */
  hlen(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** HSTRLEN: the length of the field's value in bytes; 0 when missing. */
  hstrlen(key: RedisArgument, field: RedisArgument, options?: CommandOptions): Promise<number>;
  /** HRANDFIELD: one random field, or null for a missing key. */
  hrandfield(key: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /**
   * HRANDFIELD count: up to `count` distinct fields; a negative count allows repeats and returns
   * exactly -count fields. `[]` for a missing key.
   */
  hrandfield(key: RedisArgument, count: number, options?: CommandOptions): Promise<V[]>;
  /** HRANDFIELD count WITHVALUES: `[field, value]` pairs (nested in RESP3, flat in RESP2). */
  hrandfieldWithValues(key: RedisArgument, count: number, options?: CommandOptions): Promise<[V, V][]>;
}

function isArgument(value: unknown): value is RedisArgument {
  return typeof value === 'string' || Buffer.isBuffer(value);
}

function asValuePairs(reply: RespValue): [RedisValue, RedisValue][] {
  return pairs(reply).map(([field, value]) => [asValue(field), asValue(value)]);
}

export const hashCommands: ThisType<CommandCaller> & HashCommands<RedisValue> = {
  hset(
    key: RedisArgument,
    fieldOrFields: RedisArgument | RedisPairs,
    valueOrOptions?: RedisInput | CommandOptions,
    options?: CommandOptions,
  ): Promise<number> {
    if (isArgument(fieldOrFields)) {
      return this.call(['HSET', key, fieldOrFields, valueOrOptions as RedisInput], asInteger, options);
    }
    const commandOptions = valueOrOptions as CommandOptions | undefined;
    try {
      return this.call(pushPairs('hset', ['HSET', key], fieldOrFields), asInteger, commandOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  },
  hsetnx(key, field, value, options) {
    return this.call(['HSETNX', key, field, value], asBoolean, options);
  },
  hget(key, field, options) {
    return this.call(['HGET', key, field], asNullableValue, options);
  },
  hmget(key, fields, options) {
    return itemsCall(this, ['HMGET', key], fields, 'fields', asNullableValues, options);
  },
  hgetall(key, options) {
    return this.call(['HGETALL', key], asRecord, options);
  },
  hdel(key, fields, options) {
    return itemsCall(this, ['HDEL', key], fields, 'fields', asInteger, options);
  },
  hexists(key, field, options) {
    return this.call(['HEXISTS', key, field], asBoolean, options);
  },
  hincrby(key, field, increment, options) {
    return this.call(['HINCRBY', key, field, increment], asCounter, options);
  },
  hincrbyfloat(key, field, increment, options) {
    try {
      numberArgument('hincrbyfloat', 'increment', increment);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(['HINCRBYFLOAT', key, field, increment], asDouble, options);
  },
  hkeys(key, options) {
    return this.call(['HKEYS', key], asValues, options);
  },
  hvals(key, options) {
    return this.call(['HVALS', key], asValues, options);
  },
  hlen(key, options) {
    return this.call(['HLEN', key], asInteger, options);
  },
  hstrlen(key, field, options) {
    return this.call(['HSTRLEN', key, field], asInteger, options);
  },
  hrandfield(
    key: RedisArgument,
    countOrOptions?: number | CommandOptions,
    options?: CommandOptions,
  ): Promise<never> {
    return countedCall(this, 'HRANDFIELD', SAMPLED_VALUES, key, countOrOptions, options);
  },
  hrandfieldWithValues(key, count, options) {
    try {
      integerArgument('hrandfieldWithValues', 'count', count);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(['HRANDFIELD', key, count, 'WITHVALUES'], asValuePairs, options);
  },
};
