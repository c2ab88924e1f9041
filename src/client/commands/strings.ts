// String commands: GET/SET and their variants, multi-key MGET/MSET, counters, ranges.
import type { RespArgument } from '../../resp/encoder.js';
import type { CommandOptions } from '../../transport/command.js';
import {
  checkExclusive,
  checkOptionKeys,
  flagOption,
  integerArgument,
  integerOption,
  numberArgument,
  pushPairs,
  type RedisInput,
  type RedisKeys,
  type RedisPairs,
} from './arguments.js';
import { itemsCall } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import {
  asBoolean,
  asCounter,
  asDouble,
  asInteger,
  asNullableOk,
  asNullableValue,
  asNullableValues,
  asOk,
  asValue,
  type RedisValue,
} from './reply.js';

/** When a key expires: at most one of these (integers, > 0). */
export interface ExpiryOptions extends CommandOptions {
  /** Seconds from now. */
  EX?: number;
  /** Milliseconds from now. */
  PX?: number;
  /** Unix time in seconds. */
  EXAT?: number;
  /** Unix time in milliseconds. */
  PXAT?: number;
}

/** SET options: expiry, KEEPTTL, the NX/XX condition (GET: see the overload), per-command options. */
export interface SetOptions extends ExpiryOptions {
  /** Keep the key's time to live. */
  KEEPTTL?: boolean;
  /** Only set a key that does not exist. */
  NX?: boolean;
  /** Only set a key that exists. */
  XX?: boolean;
}

/** GETEX options: a new expiry, or PERSIST to remove it. */
export interface GetExOptions extends ExpiryOptions {
  /** PERSIST: remove the key's time to live. */
  PERSIST?: boolean;
}

export interface StringCommands<V extends RedisValue = string> {
  /** GET: the value, or null when the key does not exist. */
  get(key: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /**
   * SET … GET: stores the value and resolves with the previous one (null when there was none,
   * or when NX/XX kept the value from being set).
   */
  set(key: RedisArgument, value: RedisInput, options: SetOptions & { GET: true }): Promise<V | null>;
  /** SET: `'OK'`, or null when NX/XX kept the value from being set. */
  set(key: RedisArgument, value: RedisInput, options?: SetOptions & { GET?: false }): Promise<'OK' | null>;
  /** SETNX: true when the key was set (it did not exist). */
  setnx(key: RedisArgument, value: RedisInput, options?: CommandOptions): Promise<boolean>;
  /** MGET: one value per key, in order; null for missing keys and non-string values. */
  mget(keys: RedisKeys, options?: CommandOptions): Promise<(V | null)[]>;
  /** MSET: sets every pair; always `'OK'`. */
  mset(pairs: RedisPairs, options?: CommandOptions): Promise<'OK'>;
  /** MSETNX: true when all pairs were set; false (and nothing set) when any key existed. */
  msetnx(pairs: RedisPairs, options?: CommandOptions): Promise<boolean>;
  /** INCR: the new value; a bigint beyond ±(2^53 - 1). */
  incr(key: RedisArgument, options?: CommandOptions): Promise<number | bigint>;
  /** INCRBY: the new value; a bigint beyond ±(2^53 - 1). */
  incrby(key: RedisArgument, increment: number | bigint, options?: CommandOptions): Promise<number | bigint>;
  /** INCRBYFLOAT: the new value (Redis answers a bulk string in both protocols; parsed). */
  incrbyfloat(key: RedisArgument, increment: number, options?: CommandOptions): Promise<number>;
  /** DECR: the new value; a bigint beyond ±(2^53 - 1). */
  decr(key: RedisArgument, options?: CommandOptions): Promise<number | bigint>;
  /** DECRBY: the new value; a bigint beyond ±(2^53 - 1). */
  decrby(key: RedisArgument, decrement: number | bigint, options?: CommandOptions): Promise<number | bigint>;
  /** APPEND: the length of the value after the append, in bytes. */
  append(key: RedisArgument, value: RedisInput, options?: CommandOptions): Promise<number>;
  /** GETDEL: the value, deleting the key; null when it did not exist. */
  getdel(key: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /** GETEX: the value, changing its expiry; null when the key does not exist. */
  getex(key: RedisArgument, options?: GetExOptions): Promise<V | null>;
  /** GETRANGE: the bytes from `start` to `end` inclusive (negative counts from the end); `''` if none. */
  getrange(key: RedisArgument, start: number, end: number, options?: CommandOptions): Promise<V>;
  /** SETRANGE: overwrites from byte `offset`; the value's new length. */
  setrange(key: RedisArgument, offset: number, value: RedisInput, options?: CommandOptions): Promise<number>;
  /** STRLEN: the value's length in bytes; 0 for a missing key. */
  strlen(key: RedisArgument, options?: CommandOptions): Promise<number>;
}

const SET_OPTIONS = ['EX', 'PX', 'EXAT', 'PXAT', 'KEEPTTL', 'NX', 'XX', 'GET'];
const GETEX_OPTIONS = ['EX', 'PX', 'EXAT', 'PXAT', 'PERSIST'];
const EXPIRY_KINDS = ['EX', 'PX', 'EXAT', 'PXAT'] as const;
const SET_EXPIRIES = [...EXPIRY_KINDS, 'KEEPTTL'];
const NX_OR_XX = ['NX', 'XX'];

/** Appends the one expiry option set, if any. */
function pushExpiry(helper: string, args: RespArgument[], options: ExpiryOptions): void {
  for (const kind of EXPIRY_KINDS) {
    const value = options[kind];
    if (value !== undefined) args.push(kind, integerOption(helper, kind, value, 1));
  }
}

function setArguments(key: RedisArgument, value: RedisInput, options: SetOptions & { GET?: boolean }) {
  checkOptionKeys('set', options, SET_OPTIONS);
  checkExclusive('set', options, SET_EXPIRIES);
  checkExclusive('set', options, NX_OR_XX);
  const args: RespArgument[] = ['SET', key, value];
  pushExpiry('set', args, options);
  if (flagOption('set', 'KEEPTTL', options.KEEPTTL)) args.push('KEEPTTL');
  if (flagOption('set', 'NX', options.NX)) args.push('NX');
  if (flagOption('set', 'XX', options.XX)) args.push('XX');
  if (flagOption('set', 'GET', options.GET)) args.push('GET');
  return args;
}

export const stringCommands: ThisType<CommandCaller> & StringCommands<RedisValue> = {
  get(key, options) {
    return this.call(['GET', key], asNullableValue, options);
  },
  set(key: RedisArgument, value: RedisInput, options?: SetOptions & { GET?: boolean }): Promise<never> {
    if (options === undefined) return this.call(['SET', key, value], asNullableOk, options) as Promise<never>;
    let args: RespArgument[];
    try {
      args = setArguments(key, value, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, options.GET === true ? asNullableValue : asNullableOk, options) as Promise<never>;
  },
  setnx(key, value, options) {
    return this.call(['SETNX', key, value], asBoolean, options);
  },
  mget(keys, options) {
    return itemsCall(this, ['MGET'], keys, 'keys', asNullableValues, options);
  },
  mset(pairs, options) {
    try {
      return this.call(pushPairs('mset', ['MSET'], pairs), asOk, options);
    } catch (error) {
      return Promise.reject(error);
    }
  },
  msetnx(pairs, options) {
    try {
      return this.call(pushPairs('msetnx', ['MSETNX'], pairs), asBoolean, options);
    } catch (error) {
      return Promise.reject(error);
    }
  },
  incr(key, options) {
    return this.call(['INCR', key], asCounter, options);
  },
  incrby(key, increment, options) {
    return this.call(['INCRBY', key, increment], asCounter, options);
  },
  incrbyfloat(key, increment, options) {
    try {
      return this.call(
        ['INCRBYFLOAT', key, numberArgument('incrbyfloat', 'increment', increment)],
        asDouble,
        options,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  },
  decr(key, options) {
    return this.call(['DECR', key], asCounter, options);
  },
  decrby(key, decrement, options) {
    return this.call(['DECRBY', key, decrement], asCounter, options);
  },
  append(key, value, options) {
    return this.call(['APPEND', key, value], asInteger, options);
  },
  getdel(key, options) {
    return this.call(['GETDEL', key], asNullableValue, options);
  },
  getex(key, options) {
    const args: RespArgument[] = ['GETEX', key];
    if (options !== undefined) {
      try {
        checkOptionKeys('getex', options, GETEX_OPTIONS);
        checkExclusive('getex', options, GETEX_OPTIONS);
        pushExpiry('getex', args, options);
        if (flagOption('getex', 'PERSIST', options.PERSIST)) args.push('PERSIST');
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.call(args, asNullableValue, options);
  },
  getrange(key, start, end, options) {
    try {
      integerArgument('getrange', 'start', start);
      integerArgument('getrange', 'end', end);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(['GETRANGE', key, start, end], asValue, options);
  },
  setrange(key, offset, value, options) {
    try {
      integerArgument('setrange', 'offset', offset, 0);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(['SETRANGE', key, offset, value], asInteger, options);
  },
  strlen(key, options) {
    return this.call(['STRLEN', key], asInteger, options);
  },
};
