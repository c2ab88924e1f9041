// Keyspace commands: deleting, testing, renaming and copying keys, and their expiry.
import type { RespArgument } from '../../resp/encoder.js';
import type { CommandOptions } from '../../transport/command.js';
import {
  checkExclusive,
  checkOptionKeys,
  flagOption,
  integerArgument,
  integerOption,
  type RedisKeys,
} from './arguments.js';
import { itemsCall } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asBoolean, asInteger, asNullableValue, asOk, asString, type RedisValue } from './reply.js';

/** EXPIRE family conditions (Redis 7): NX excludes the others; GT and LT exclude each other. */
export interface ExpireOptions extends CommandOptions {
  /** Only when the key has no expiry. */
  NX?: boolean;
  /** Only when the key has an expiry. */
  XX?: boolean;
  /** Only when the new expiry is later than the current one (no expiry counts as infinite). */
  GT?: boolean;
  /** Only when the new expiry is earlier than the current one. */
  LT?: boolean;
}

export interface CopyOptions extends CommandOptions {
  /** Copy into this database instead of the current one. */
  DB?: number;
  /** Overwrite an existing destination. */
  REPLACE?: boolean;
}

export interface KeyCommands<V extends RedisValue = string> {
  /** DEL: how many of the keys existed and were removed. */
  del(keys: RedisKeys, options?: CommandOptions): Promise<number>;
  /** UNLINK: as DEL, reclaiming memory in the background. */
  unlink(keys: RedisKeys, options?: CommandOptions): Promise<number>;
  /** EXISTS: how many of the keys exist (a key named twice counts twice). */
  exists(keys: RedisKeys, options?: CommandOptions): Promise<number>;
  /** TOUCH: how many of the keys exist (their last access time is updated). */
  touch(keys: RedisKeys, options?: CommandOptions): Promise<number>;
  /** EXPIRE: true when the expiry was set; false for a missing key or an unmet condition. */
  expire(key: RedisArgument, seconds: number, options?: ExpireOptions): Promise<boolean>;
  /** PEXPIRE: as `expire`, in milliseconds. */
  pexpire(key: RedisArgument, milliseconds: number, options?: ExpireOptions): Promise<boolean>;
  /** EXPIREAT: as `expire`, at a Unix time in seconds. */
  expireat(key: RedisArgument, unixSeconds: number, options?: ExpireOptions): Promise<boolean>;
  /** PEXPIREAT: as `expire`, at a Unix time in milliseconds. */
  pexpireat(key: RedisArgument, unixMilliseconds: number, options?: ExpireOptions): Promise<boolean>;
  /** TTL: seconds left; -1 when the key has no expiry, -2 when it does not exist. */
  ttl(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** PTTL: as `ttl`, in milliseconds. */
  pttl(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** EXPIRETIME: the expiry as a Unix time in seconds; -1 without expiry, -2 for a missing key. */
  expiretime(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** PEXPIRETIME: as `expiretime`, in milliseconds. */
  pexpiretime(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** PERSIST: true when an expiry was removed. */
  persist(key: RedisArgument, options?: CommandOptions): Promise<boolean>;
  /** TYPE: `'string'`, `'list'`, `'set'`, `'zset'`, `'hash'`, `'stream'`…; `'none'` when missing. */
  type(key: RedisArgument, options?: CommandOptions): Promise<string>;
  /** RENAME: `'OK'`; rejects (ERR) when the key does not exist. */
  rename(key: RedisArgument, newKey: RedisArgument, options?: CommandOptions): Promise<'OK'>;
  /** RENAMENX: true when renamed; false when `newKey` already existed. */
  renamenx(key: RedisArgument, newKey: RedisArgument, options?: CommandOptions): Promise<boolean>;
  /** COPY: true when copied; false when the source is missing or the destination exists. */
  copy(source: RedisArgument, destination: RedisArgument, options?: CopyOptions): Promise<boolean>;
  /** RANDOMKEY: some key of the database, or null when it is empty. */
  randomkey(options?: CommandOptions): Promise<V | null>;
}

const EXPIRE_OPTIONS = ['NX', 'XX', 'GT', 'LT'] as const;
const NX_OR_XX = ['NX', 'XX'];
const NX_OR_GT_OR_LT = ['NX', 'GT', 'LT'];

function expireCall(
  caller: CommandCaller,
  name: string,
  key: RedisArgument,
  time: number,
  options: ExpireOptions | undefined,
): Promise<boolean> {
  const helper = name.toLowerCase();
  const args: RespArgument[] = [name, key, 0];
  try {
    args[2] = integerArgument(helper, 'time', time);
    if (options !== undefined) {
      checkOptionKeys(helper, options, EXPIRE_OPTIONS);
      checkExclusive(helper, options, NX_OR_XX);
      checkExclusive(helper, options, NX_OR_GT_OR_LT);
      for (const condition of EXPIRE_OPTIONS) {
        if (flagOption(helper, condition, options[condition])) args.push(condition);
      }
    }
  } catch (error) {
    return Promise.reject(error);
  }
  return caller.call(args, asBoolean, options);
}

export const keyCommands: ThisType<CommandCaller> & KeyCommands<RedisValue> = {
  del(keys, options) {
    return itemsCall(this, ['DEL'], keys, 'keys', asInteger, options);
  },
  unlink(keys, options) {
    return itemsCall(this, ['UNLINK'], keys, 'keys', asInteger, options);
  },
  exists(keys, options) {
    return itemsCall(this, ['EXISTS'], keys, 'keys', asInteger, options);
  },
  touch(keys, options) {
    return itemsCall(this, ['TOUCH'], keys, 'keys', asInteger, options);
  },
  expire(key, seconds, options) {
    return expireCall(this, 'EXPIRE', key, seconds, options);
  },
  pexpire(key, milliseconds, options) {
    return expireCall(this, 'PEXPIRE', key, milliseconds, options);
  },
  expireat(key, unixSeconds, options) {
    return expireCall(this, 'EXPIREAT', key, unixSeconds, options);
  },
  pexpireat(key, unixMilliseconds, options) {
    return expireCall(this, 'PEXPIREAT', key, unixMilliseconds, options);
  },
  ttl(key, options) {
    return this.call(['TTL', key], asInteger, options);
  },
  pttl(key, options) {
    return this.call(['PTTL', key], asInteger, options);
  },
  expiretime(key, options) {
    return this.call(['EXPIRETIME', key], asInteger, options);
  },
  pexpiretime(key, options) {
    return this.call(['PEXPIRETIME', key], asInteger, options);
  },
  persist(key, options) {
    return this.call(['PERSIST', key], asBoolean, options);
  },
  type(key, options) {
    return this.call(['TYPE', key], asString, options);
  },
  rename(key, newKey, options) {
    return this.call(['RENAME', key, newKey], asOk, options);
  },
  renamenx(key, newKey, options) {
    return this.call(['RENAMENX', key, newKey], asBoolean, options);
  },
  copy(source, destination, options) {
    const args: RespArgument[] = ['COPY', source, destination];
    if (options !== undefined) {
      try {
        checkOptionKeys('copy', options, ['DB', 'REPLACE']);
        if (options.DB !== undefined) args.push('DB', integerOption('copy', 'DB', options.DB, 0));
        if (flagOption('copy', 'REPLACE', options.REPLACE)) args.push('REPLACE');
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.call(args, asBoolean, options);
  },
  randomkey(options) {
    return this.call(['RANDOMKEY'], asNullableValue, options);
  },
};
