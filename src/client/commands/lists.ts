// List commands, including the blocking pops, which run on a dedicated connection
// (CommandFlags.Blocking; PROTOCOL.md §6: their timeouts are in seconds, 0 waits forever).
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import { CommandFlags, type CommandOptions, type ReplyTransform } from '../../transport/command.js';
import {
  checkOptionKeys,
  integerOption,
  keyList,
  numberArgument,
  type RedisInput,
  type RedisKeys,
  wordArgument,
} from './arguments.js';
import { blockingKeysCall, countedCall, itemsCall, POPPED_VALUES } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import {
  asInteger,
  asNullableInteger,
  asNullableValue,
  asOk,
  asValue,
  asValues,
  elements,
  type RedisValue,
  unexpected,
} from './reply.js';

/** An end of a list. */
export type ListEnd = 'LEFT' | 'RIGHT';

export interface LposOptions extends CommandOptions {
  /** Which match to return: 1 the first, 2 the second, -1 the last… */
  RANK?: number;
  /** Compare at most this many elements (0 = all). */
  MAXLEN?: number;
}

export interface PopCountOptions extends CommandOptions {
  /** Pop up to this many elements (at least 1). */
  COUNT?: number;
}

/** What BLPOP/BRPOP popped. */
export interface ListPop<V> {
  /** The list the element was popped from. */
  key: V;
  /** The popped element. */
  element: V;
}

/** What LMPOP/BLMPOP popped. */
export interface ListMultiPop<V> {
  /** The list the elements were popped from. */
  key: V;
  /** The popped elements, in pop order. */
  elements: V[];
}

export interface ListCommands<V extends RedisValue = string> {
  /** LPUSH: the list's length after prepending (the last element given ends up first). */
  lpush(
    key: RedisArgument,
    elements: RedisInput | readonly RedisInput[],
    options?: CommandOptions,
  ): Promise<number>;
  /** RPUSH: the list's length after appending. */
  rpush(
    key: RedisArgument,
    elements: RedisInput | readonly RedisInput[],
    options?: CommandOptions,
  ): Promise<number>;
  /** LPOP: the first element, or null for a missing key. */
  lpop(key: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /** LPOP count: up to `count` elements from the head; `[]` for a missing key. */
  lpop(key: RedisArgument, count: number, options?: CommandOptions): Promise<V[]>;
  /** RPOP: the last element, or null for a missing key. */
  rpop(key: RedisArgument, options?: CommandOptions): Promise<V | null>;
  /** RPOP count: up to `count` elements from the tail; `[]` for a missing key. */
  rpop(key: RedisArgument, count: number, options?: CommandOptions): Promise<V[]>;
  /** LRANGE: elements `start` to `stop` inclusive (negative counts from the end). */
  lrange(key: RedisArgument, start: number, stop: number, options?: CommandOptions): Promise<V[]>;
  /** LLEN: the length; 0 for a missing key. */
  llen(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** LINDEX: the element at `index`, or null when out of range. */
  lindex(key: RedisArgument, index: number, options?: CommandOptions): Promise<V | null>;
  /** LSET: `'OK'`; rejects when the index is out of range or the key is missing. */
  lset(key: RedisArgument, index: number, element: RedisInput, options?: CommandOptions): Promise<'OK'>;
  /** LREM: removes `count` matches from the head (negative: from the tail; 0: all); how many. */
  lrem(key: RedisArgument, count: number, element: RedisInput, options?: CommandOptions): Promise<number>;
  /** LTRIM: keeps elements `start` to `stop`; `'OK'`. */
  ltrim(key: RedisArgument, start: number, stop: number, options?: CommandOptions): Promise<'OK'>;
  /** LINSERT: the new length; -1 when the pivot is absent, 0 when the key is missing. */
  linsert(
    key: RedisArgument,
    where: 'BEFORE' | 'AFTER',
    pivot: RedisInput,
    element: RedisInput,
    options?: CommandOptions,
  ): Promise<number>;
  /** LPOS: the index of the (RANK-th) match, or null. */
  lpos(key: RedisArgument, element: RedisInput, options?: LposOptions): Promise<number | null>;
  /** LPOS … COUNT n: the indexes of up to n matches (0 = all). */
  lpos(key: RedisArgument, element: RedisInput, options: LposOptions & { COUNT: number }): Promise<number[]>;
  /** LMOVE: the element moved, or null when the source is empty. */
  lmove(
    source: RedisArgument,
    destination: RedisArgument,
    from: ListEnd,
    to: ListEnd,
    options?: CommandOptions,
  ): Promise<V | null>;
  /** LMPOP: elements popped from the first non-empty list, or null when all are empty. */
  lmpop(keys: RedisKeys, from: ListEnd, options?: PopCountOptions): Promise<ListMultiPop<V> | null>;
  /** BLPOP: waits up to `timeoutSeconds` (0 = forever) for a head element; null on timeout. */
  blpop(keys: RedisKeys, timeoutSeconds: number, options?: CommandOptions): Promise<ListPop<V> | null>;
  /** BRPOP: as `blpop`, from the tail. */
  brpop(keys: RedisKeys, timeoutSeconds: number, options?: CommandOptions): Promise<ListPop<V> | null>;
  /** BLMOVE: as `lmove`, waiting up to `timeoutSeconds` (0 = forever); null on timeout. */
  blmove(
    source: RedisArgument,
    destination: RedisArgument,
    from: ListEnd,
    to: ListEnd,
    timeoutSeconds: number,
    options?: CommandOptions,
  ): Promise<V | null>;
  /** BLMPOP: as `lmpop`, waiting up to `timeoutSeconds` (0 = forever); null on timeout. */
  blmpop(
    timeoutSeconds: number,
    keys: RedisKeys,
    from: ListEnd,
    options?: PopCountOptions,
  ): Promise<ListMultiPop<V> | null>;
}

const ENDS: readonly ListEnd[] = ['LEFT', 'RIGHT'];

function asListPop(reply: RespValue): ListPop<RedisValue> | null {
  if (reply === null) return null;
  const [key, element] = elements(reply);
  if (key === undefined || element === undefined) throw unexpected(reply, '[key, element]');
  return { key: asValue(key), element: asValue(element) };
}

function asListMultiPop(reply: RespValue): ListMultiPop<RedisValue> | null {
  if (reply === null) return null;
  const [key, popped] = elements(reply);
  if (key === undefined || popped === undefined) throw unexpected(reply, '[key, elements]');
  return { key: asValue(key), elements: asValues(popped) };
}

function asPositions(reply: RespValue): number[] {
  return elements(reply).map(asInteger);
}

/** `numkeys key… LEFT|RIGHT [COUNT n]` of LMPOP/BLMPOP, appended to `args`. */
function multiPopArguments(
  helper: string,
  args: RespArgument[],
  keys: RedisKeys,
  from: unknown,
  options?: PopCountOptions,
) {
  const list = keyList(helper, keys);
  args.push(list.length);
  for (const key of list) args.push(key);
  args.push(wordArgument(helper, 'from', from, ENDS));
  if (options !== undefined) {
    checkOptionKeys(helper, options, ['COUNT']);
    if (options.COUNT !== undefined) args.push('COUNT', integerOption(helper, 'COUNT', options.COUNT, 1));
  }
  return args;
}

/**
 * LMOVE, or BLMOVE on a dedicated connection when a timeout is given: `source destination from to
 * [timeout]`, the ends checked as LEFT or RIGHT.
 */
function moveCall(
  caller: CommandCaller,
  name: string,
  source: RedisArgument,
  destination: RedisArgument,
  from: unknown,
  to: unknown,
  timeoutSeconds: number | undefined,
  options: CommandOptions | undefined,
): Promise<RedisValue | null> {
  const helper = name.toLowerCase();
  const args: RespArgument[] = [name, source, destination];
  try {
    args.push(wordArgument(helper, 'from', from, ENDS), wordArgument(helper, 'to', to, ENDS));
    if (timeoutSeconds !== undefined) args.push(numberArgument(helper, 'timeoutSeconds', timeoutSeconds, 0));
  } catch (error) {
    return Promise.reject(error);
  }
  const flags = timeoutSeconds === undefined ? 0 : CommandFlags.Blocking;
  return caller.call(args, asNullableValue, options, flags);
}

export const listCommands: ThisType<CommandCaller> & ListCommands<RedisValue> = {
  lpush(key, values, options) {
    return itemsCall(this, ['LPUSH', key], values, 'elements', asInteger, options);
  },
  rpush(key, values, options) {
    return itemsCall(this, ['RPUSH', key], values, 'elements', asInteger, options);
  },
  lpop(key: RedisArgument, countOrOptions?: number | CommandOptions, options?: CommandOptions) {
    return countedCall(this, 'LPOP', POPPED_VALUES, key, countOrOptions, options);
  },
  rpop(key: RedisArgument, countOrOptions?: number | CommandOptions, options?: CommandOptions) {
    return countedCall(this, 'RPOP', POPPED_VALUES, key, countOrOptions, options);
  },
  lrange(key, start, stop, options) {
    return this.call(['LRANGE', key, start, stop], asValues, options);
  },
  llen(key, options) {
    return this.call(['LLEN', key], asInteger, options);
  },
  lindex(key, index, options) {
    return this.call(['LINDEX', key, index], asNullableValue, options);
  },
  lset(key, index, element, options) {
    return this.call(['LSET', key, index, element], asOk, options);
  },
  lrem(key, count, element, options) {
    return this.call(['LREM', key, count, element], asInteger, options);
  },
  ltrim(key, start, stop, options) {
    return this.call(['LTRIM', key, start, stop], asOk, options);
  },
  linsert(key, where, pivot, element, options) {
    let position: string;
    try {
      position = wordArgument('linsert', 'where', where, ['BEFORE', 'AFTER']);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(['LINSERT', key, position, pivot, element], asInteger, options);
  },
  lpos(key: RedisArgument, element: RedisInput, options?: LposOptions & { COUNT?: number }): Promise<never> {
    const args: RespArgument[] = ['LPOS', key, element];
    if (options !== undefined) {
      try {
        checkOptionKeys('lpos', options, ['RANK', 'COUNT', 'MAXLEN']);
        if (options.RANK !== undefined)
          args.push('RANK', integerOption('lpos', 'RANK', options.RANK, -(2 ** 53 - 1)));
        if (options.RANK === 0) throw new TypeError('lpos: RANK must not be 0');
        if (options.COUNT !== undefined) args.push('COUNT', integerOption('lpos', 'COUNT', options.COUNT, 0));
        if (options.MAXLEN !== undefined)
          args.push('MAXLEN', integerOption('lpos', 'MAXLEN', options.MAXLEN, 0));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const transform: ReplyTransform<unknown> = options?.COUNT === undefined ? asNullableInteger : asPositions;
    return this.call(args, transform, options) as Promise<never>;
  },
  lmove(source, destination, from, to, options) {
    return moveCall(this, 'LMOVE', source, destination, from, to, undefined, options);
  },
  lmpop(keys, from, options) {
    let args: RespArgument[];
    try {
      args = multiPopArguments('lmpop', ['LMPOP'], keys, from, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asListMultiPop, options);
  },
  blpop(keys, timeoutSeconds, options) {
    return blockingKeysCall(this, 'BLPOP', keys, timeoutSeconds, asListPop, options);
  },
  brpop(keys, timeoutSeconds, options) {
    return blockingKeysCall(this, 'BRPOP', keys, timeoutSeconds, asListPop, options);
  },
  blmove(source, destination, from, to, timeoutSeconds, options) {
    return moveCall(this, 'BLMOVE', source, destination, from, to, timeoutSeconds, options);
  },
  blmpop(timeoutSeconds, keys, from, options) {
    let args: RespArgument[];
    try {
      const timeout = numberArgument('blmpop', 'timeoutSeconds', timeoutSeconds, 0);
      args = multiPopArguments('blmpop', ['BLMPOP', timeout], keys, from, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asListMultiPop, options, CommandFlags.Blocking);
  },
};
