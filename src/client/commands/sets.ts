// Set commands. Members come back as arrays in both protocols (RESP3 sends a set type, RESP2 an
// array): an array keeps Buffers usable with `returnBuffers` and costs no conversion in RESP2.
// Redis gives no member order; do not rely on one.
import type { RespArgument } from '../../resp/encoder.js';
import type { CommandOptions } from '../../transport/command.js';
import { checkOptionKeys, integerOption, keyList, type RedisInput, type RedisKeys } from './arguments.js';
import { countedCall, itemsCall, POPPED_VALUES, SAMPLED_VALUES } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asBoolean, asBooleans, asInteger, asValues, type RedisValue } from './reply.js';

export interface SetCommands<V extends RedisValue = string> {
  /** SADD: how many members were added (not counting ones already there). */
  sadd(
    key: RedisArgument,
    members: RedisInput | readonly RedisInput[],
    options?: CommandOptions,
  ): Promise<number>;
  /** SREM: how many members were removed. */
  srem(
    key: RedisArgument,
    members: RedisInput | readonly RedisInput[],
    options?: CommandOptions,
  ): Promise<number>;
  /** SMEMBERS: every member, as an array in no particular order (`[]` for a missing key). */
  smembers(key: RedisArgument, options?: CommandOptions): Promise<V[]>;
  /** SISMEMBER: whether `member` is in the set. */
  sismember(key: RedisArgument, member: RedisInput, options?: CommandOptions): Promise<boolean>;
  /** SMISMEMBER: one boolean per member asked, in order. */
  smismember(
    key: RedisArgument,
    members: readonly RedisInput[],
    options?: CommandOptions,
  ): Promise<boolean[]>;
  /** SCARD: the number of members; 0 for a missing key. */
  scard(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** SPOP: removes and returns a random member, or null for a missing key. */
  spop(key: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /** SPOP count: up to `count` random members removed; `[]` for a missing key. */
  spop(key: RedisArgument, count: number, options?: CommandOptions): Promise<V[]>;
  /** SRANDMEMBER: a random member (not removed), or null for a missing key. */
  srandmember(key: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /** SRANDMEMBER count: up to `count` distinct members; a negative count allows repeats. */
  srandmember(key: RedisArgument, count: number, options?: CommandOptions): Promise<V[]>;
  /** SINTER: members in every set. */
  sinter(keys: RedisKeys, options?: CommandOptions): Promise<V[]>;
  /** SUNION: members in any set. */
  sunion(keys: RedisKeys, options?: CommandOptions): Promise<V[]>;
  /** SDIFF: members of the first set in none of the others. */
  sdiff(keys: RedisKeys, options?: CommandOptions): Promise<V[]>;
  /** SINTERSTORE: stores the intersection at `destination`; its size. */
  sinterstore(destination: RedisArgument, keys: RedisKeys, options?: CommandOptions): Promise<number>;
  /** SUNIONSTORE: stores the union at `destination`; its size. */
  sunionstore(destination: RedisArgument, keys: RedisKeys, options?: CommandOptions): Promise<number>;
  /** SDIFFSTORE: stores the difference at `destination`; its size. */
  sdiffstore(destination: RedisArgument, keys: RedisKeys, options?: CommandOptions): Promise<number>;
  /** SINTERCARD: the intersection's size, counting at most LIMIT (0 = no limit). */
  sintercard(keys: RedisKeys, options?: CommandOptions & { LIMIT?: number }): Promise<number>;
  /** SMOVE: true when the member was moved; false when it was not in `source`. */
  smove(
    source: RedisArgument,
    destination: RedisArgument,
    member: RedisInput,
    options?: CommandOptions,
  ): Promise<boolean>;
}

export const setCommands: ThisType<CommandCaller> & SetCommands<RedisValue> = {
  sadd(key, members, options) {
    return itemsCall(this, ['SADD', key], members, 'members', asInteger, options);
  },
  srem(key, members, options) {
    return itemsCall(this, ['SREM', key], members, 'members', asInteger, options);
  },
  smembers(key, options) {
    return this.call(['SMEMBERS', key], asValues, options);
  },
  sismember(key, member, options) {
    return this.call(['SISMEMBER', key, member], asBoolean, options);
  },
  smismember(key, members, options) {
    return itemsCall(this, ['SMISMEMBER', key], members, 'members', asBooleans, options);
  },
  scard(key, options) {
    return this.call(['SCARD', key], asInteger, options);
  },
  spop(key: RedisArgument, countOrOptions?: number | CommandOptions, options?: CommandOptions) {
    return countedCall(this, 'SPOP', POPPED_VALUES, key, countOrOptions, options);
  },
  srandmember(key: RedisArgument, countOrOptions?: number | CommandOptions, options?: CommandOptions) {
    return countedCall(this, 'SRANDMEMBER', SAMPLED_VALUES, key, countOrOptions, options);
  },
  sinter(keys, options) {
    return itemsCall(this, ['SINTER'], keys, 'keys', asValues, options);
  },
  sunion(keys, options) {
    return itemsCall(this, ['SUNION'], keys, 'keys', asValues, options);
  },
  sdiff(keys, options) {
    return itemsCall(this, ['SDIFF'], keys, 'keys', asValues, options);
  },
  sinterstore(destination, keys, options) {
    return itemsCall(this, ['SINTERSTORE', destination], keys, 'keys', asInteger, options);
  },
  sunionstore(destination, keys, options) {
    return itemsCall(this, ['SUNIONSTORE', destination], keys, 'keys', asInteger, options);
  },
  sdiffstore(destination, keys, options) {
    return itemsCall(this, ['SDIFFSTORE', destination], keys, 'keys', asInteger, options);
  },
  sintercard(keys, options) {
    let args: RespArgument[];
    try {
      const list = keyList('sintercard', keys);
      args = ['SINTERCARD', list.length, ...list];
      if (options !== undefined) {
        checkOptionKeys('sintercard', options, ['LIMIT']);
        if (options.LIMIT !== undefined)
          args.push('LIMIT', integerOption('sintercard', 'LIMIT', options.LIMIT, 0));
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asInteger, options);
  },
  smove(source, destination, member, options) {
    return this.call(['SMOVE', source, destination, member], asBoolean, options);
  },
};
