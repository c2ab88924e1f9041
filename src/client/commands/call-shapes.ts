// Call shapes several command families share: a key list, a non-empty list of values, an optional
// count (one reply without it, a list with it) and a blocking pop over keys. Each validates before
// sending and turns a bad argument into a rejected promise (see ./arguments.ts); the family passes
// the command name, its reply transforms and its limits.
import type { RespArgument } from '../../resp/encoder.js';
import { CommandFlags, type CommandOptions, type ReplyTransform } from '../../transport/command.js';
import { integerArgument, keyList, numberArgument, type RedisInput, type RedisKeys } from './arguments.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asInteger, asNullableValue, asValues } from './reply.js';

/**
 * `head key…` (DEL, SINTER, SINTERSTORE destination, HDEL key…): the keys appended to `head`; the
 * helper named in errors is the lower-cased command.
 */
export function keysCall<T>(
  caller: CommandCaller,
  head: RespArgument[],
  keys: RedisKeys,
  transform: ReplyTransform<T>,
  options: CommandOptions | undefined,
): Promise<T> {
  try {
    head.push(...keyList(String(head[0]).toLowerCase(), keys));
  } catch (error) {
    return Promise.reject(error);
  }
  return caller.call(head, transform, options);
}

/**
 * `NAME key value…` answering a count (LPUSH, SADD, ZREM): one value or an array of them, which
 * must not be empty; `noun` names them in the error (`elements`, `members`).
 */
export function valuesCall(
  caller: CommandCaller,
  name: string,
  key: RedisArgument,
  values: unknown,
  noun: string,
  options: CommandOptions | undefined,
): Promise<number> {
  const list = Array.isArray(values) ? values : [values];
  if (list.length === 0) {
    return Promise.reject(new TypeError(`${name.toLowerCase()}: ${noun} must not be empty`));
  }
  return caller.call([name, key, ...(list as RedisInput[])], asInteger, options);
}

/** How a command with an optional count answers, and the smallest count it takes. */
export interface CountedReply {
  /** The reply without a count: one item, or null. */
  one: ReplyTransform<unknown>;
  /** The reply with a count: a list. */
  many: ReplyTransform<unknown>;
  /** 0 for pops; the safe-integer bound where a negative count allows repeats (SRANDMEMBER). */
  minCount: number;
}

/** LPOP, RPOP, SPOP: one value or null without a count, a list with a count from 0. */
export const POPPED_VALUES: CountedReply = { one: asNullableValue, many: asValues, minCount: 0 };

/** SRANDMEMBER, HRANDFIELD: as POPPED_VALUES, and a negative count allows repeats. */
export const SAMPLED_VALUES: CountedReply = {
  one: asNullableValue,
  many: asValues,
  minCount: Number.MIN_SAFE_INTEGER,
};

/**
 * `NAME key [count]` (LPOP, SPOP, SRANDMEMBER, ZPOPMIN, HRANDFIELD): the second argument is the
 * count when it is a number, else the options. Typed `never` so each overloaded helper keeps its
 * own declared results.
 */
export function countedCall(
  caller: CommandCaller,
  name: string,
  reply: CountedReply,
  key: RedisArgument,
  countOrOptions: number | CommandOptions | undefined,
  options: CommandOptions | undefined,
): Promise<never> {
  if (typeof countOrOptions !== 'number') {
    return caller.call([name, key], reply.one, countOrOptions) as Promise<never>;
  }
  try {
    integerArgument(name.toLowerCase(), 'count', countOrOptions, reply.minCount);
  } catch (error) {
    return Promise.reject(error);
  }
  return caller.call([name, key, countOrOptions], reply.many, options) as Promise<never>;
}

/**
 * `NAME key… timeout` (BLPOP, BZPOPMIN) on a dedicated connection; the timeout is in seconds,
 * 0 waits forever (PROTOCOL.md §6).
 */
export function blockingKeysCall<T>(
  caller: CommandCaller,
  name: string,
  keys: RedisKeys,
  timeoutSeconds: number,
  transform: ReplyTransform<T>,
  options: CommandOptions | undefined,
): Promise<T> {
  const helper = name.toLowerCase();
  let args: RespArgument[];
  try {
    args = [name, ...keyList(helper, keys), numberArgument(helper, 'timeoutSeconds', timeoutSeconds, 0)];
  } catch (error) {
    return Promise.reject(error);
  }
  return caller.call(args, transform, options, CommandFlags.Blocking);
}
