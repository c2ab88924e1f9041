// Call shapes several command families share: a non-empty list of keys or values, an optional
// count (one reply without it, a list with it) and a blocking pop over keys. Each validates before
// sending and turns a bad argument into a rejected promise (see ./arguments.ts); the family passes
// the command name, its reply transforms and its limits.
import type { RespArgument } from '../../resp/encoder.js';
import { CommandFlags, type CommandOptions, type ReplyTransform } from '../../transport/command.js';
import { integerArgument, keyList, numberArgument, type RedisInput, type RedisKeys } from './arguments.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asNullableValue, asValues } from './reply.js';

/**
 * `head item…` (DEL key…, HDEL key field…, SADD key member…, XACK key group id…): one item, or a
 * non-empty array of them, appended to `head`; `noun` names them in the error, after the
 * lower-cased command. Appended one at a time: `push(...items)` overflows the stack past about
 * 100k items, which DEL and MGET can take.
 */
export function itemsCall<T>(
  caller: CommandCaller,
  head: RespArgument[],
  items: RedisInput | readonly RedisInput[],
  noun: string,
  transform: ReplyTransform<T>,
  options: CommandOptions | undefined,
): Promise<T> {
  if (!Array.isArray(items)) head.push(items as RedisInput);
  else if (items.length === 0) {
    return Promise.reject(new TypeError(`${String(head[0]).toLowerCase()}: ${noun} must not be empty`));
  } else for (const item of items as readonly RedisInput[]) head.push(item);
  return caller.call(head, transform, options);
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
