// Sorted set commands. Scores are numbers in both protocols: RESP3 sends doubles, RESP2 sends
// strings (`'1.5'`, `'inf'`, `'-inf'`) that are parsed. ZRANGE and friends: ./sorted-set-ranges.ts.
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import type { CommandOptions } from '../../transport/command.js';
import {
  checkExclusive,
  checkOptionKeys,
  flagOption,
  nonEmpty,
  type RedisInput,
  type RedisKeys,
  scoreArgument,
} from './arguments.js';
import { blockingKeysCall, type CountedReply, countedCall, itemsCall } from './call-shapes.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import {
  asDouble,
  asInteger,
  asNullableDouble,
  asNullableDoubles,
  asNullableInteger,
  asValue,
  elements,
  type RedisValue,
  unexpected,
} from './reply.js';
import { asScoredMembers, type ScoreBound, type ScoredMember } from './sorted-set-ranges.js';

/** A member to add: its score may be ±Infinity (sent as `+inf`/`-inf`), never NaN. */
export interface ScoredInput {
  /** The member to add or update. */
  member: RedisInput;
  /** Its score. */
  score: number;
}

/** What BZPOPMIN/BZPOPMAX popped. */
export interface SortedSetPop<V> extends ScoredMember<V> {
  /** The sorted set the member was popped from. */
  key: V;
}

/** ZADD conditions: NX excludes XX, GT and LT; GT and LT exclude each other. */
export interface ZAddOptions extends CommandOptions {
  /** Only add new members. */
  NX?: boolean;
  /** Only update existing members. */
  XX?: boolean;
  /** Only update when the new score is greater. */
  GT?: boolean;
  /** Only update when the new score is less. */
  LT?: boolean;
  /** Count changed members too, not only added ones. */
  CH?: boolean;
}

export interface SortedSetCommands<V extends RedisValue = string> {
  /** ZADD: how many members were added (with CH: added or changed). */
  zadd(
    key: RedisArgument,
    members: ScoredInput | readonly ScoredInput[],
    options?: ZAddOptions,
  ): Promise<number>;
  /** ZADD … INCR: the member's new score, or null when a condition kept it from changing. */
  zaddIncr(
    key: RedisArgument,
    member: RedisInput,
    increment: number,
    options?: ZAddOptions,
  ): Promise<number | null>;
  /** ZINCRBY: the member's new score. */
  zincrby(
    key: RedisArgument,
    increment: number,
    member: RedisInput,
    options?: CommandOptions,
  ): Promise<number>;
  /** ZSCORE: the member's score, or null when the member or key is missing. */
  zscore(key: RedisArgument, member: RedisInput, options?: CommandOptions): Promise<number | null>;
  /** ZMSCORE: one score (or null) per member asked, in order. */
  zmscore(
    key: RedisArgument,
    members: readonly RedisInput[],
    options?: CommandOptions,
  ): Promise<(number | null)[]>;
  /** ZRANK: the member's 0-based rank by ascending score, or null. */
  zrank(key: RedisArgument, member: RedisInput, options?: CommandOptions): Promise<number | null>;
  /** ZREVRANK: the member's 0-based rank by descending score, or null. */
  zrevrank(key: RedisArgument, member: RedisInput, options?: CommandOptions): Promise<number | null>;
  /** ZREM: how many members were removed. */
  zrem(
    key: RedisArgument,
    members: RedisInput | readonly RedisInput[],
    options?: CommandOptions,
  ): Promise<number>;
  /** ZCARD: the number of members; 0 for a missing key. */
  zcard(key: RedisArgument, options?: CommandOptions): Promise<number>;
  /** ZCOUNT: how many members score between `min` and `max`. */
  zcount(key: RedisArgument, min: ScoreBound, max: ScoreBound, options?: CommandOptions): Promise<number>;
  /** ZREMRANGEBYSCORE: removes members scoring between `min` and `max`; how many. */
  zremrangebyscore(
    key: RedisArgument,
    min: ScoreBound,
    max: ScoreBound,
    options?: CommandOptions,
  ): Promise<number>;
  /** ZPOPMIN: the lowest-scoring member, removed; null for a missing key. */
  zpopmin(key: RedisArgument, options?: CommandOptions): Promise<ScoredMember<V> | null>;
  /** ZPOPMIN count: up to `count` lowest-scoring members, lowest first; `[]` for a missing key. */
  zpopmin(key: RedisArgument, count: number, options?: CommandOptions): Promise<ScoredMember<V>[]>;
  /** ZPOPMAX: the highest-scoring member, removed; null for a missing key. */
  zpopmax(key: RedisArgument, options?: CommandOptions): Promise<ScoredMember<V> | null>;
  /** ZPOPMAX count: up to `count` highest-scoring members, highest first. */
  zpopmax(key: RedisArgument, count: number, options?: CommandOptions): Promise<ScoredMember<V>[]>;
  /** BZPOPMIN: waits up to `timeoutSeconds` (0 = forever) for a member to pop; null on timeout. */
  bzpopmin(
    keys: RedisKeys,
    timeoutSeconds: number,
    options?: CommandOptions,
  ): Promise<SortedSetPop<V> | null>;
  /** BZPOPMAX: as `bzpopmin`, the highest-scoring member. */
  bzpopmax(
    keys: RedisKeys,
    timeoutSeconds: number,
    options?: CommandOptions,
  ): Promise<SortedSetPop<V> | null>;
}

function asSortedSetPop(reply: RespValue): SortedSetPop<RedisValue> | null {
  if (reply === null) return null;
  const [key, member, score] = elements(reply);
  if (key === undefined || member === undefined || score === undefined)
    throw unexpected(reply, '[key, member, score]');
  return { key: asValue(key), member: asValue(member), score: asDouble(score) };
}

function asFirstScoredMember(reply: RespValue): ScoredMember<RedisValue> | null {
  return asScoredMembers(reply)[0] ?? null;
}

const ZADD_OPTIONS = ['NX', 'XX', 'GT', 'LT', 'CH'] as const;
const NX_OR_XX = ['NX', 'XX'];
const NX_OR_GT_OR_LT = ['NX', 'GT', 'LT'];

function zaddHead(key: RedisArgument, options: ZAddOptions | undefined): RespArgument[] {
  const args: RespArgument[] = ['ZADD', key];
  if (options === undefined) return args;
  checkOptionKeys('zadd', options, ZADD_OPTIONS);
  checkExclusive('zadd', options, NX_OR_XX);
  checkExclusive('zadd', options, NX_OR_GT_OR_LT);
  for (const option of ZADD_OPTIONS) if (flagOption('zadd', option, options[option])) args.push(option);
  return args;
}

/** ZPOPMIN/ZPOPMAX: one scored member without a count, a list with one. */
const POPPED: CountedReply = { one: asFirstScoredMember, many: asScoredMembers, minCount: 0 };

function boundsCall(
  caller: CommandCaller,
  name: string,
  key: RedisArgument,
  min: unknown,
  max: unknown,
  options?: CommandOptions,
) {
  const helper = name.toLowerCase();
  let args: RespArgument[];
  try {
    args = [name, key, scoreArgument(helper, 'min', min), scoreArgument(helper, 'max', max)];
  } catch (error) {
    return Promise.reject(error);
  }
  return caller.call(args, asInteger, options);
}

export const sortedSetCommands: ThisType<CommandCaller> & SortedSetCommands<RedisValue> = {
  zadd(key, members, options) {
    let args: RespArgument[];
    try {
      args = zaddHead(key, options);
      const list = nonEmpty('zadd', 'members', Array.isArray(members) ? members : [members]);
      for (const item of list as ScoredInput[]) {
        if (item === null || typeof item !== 'object')
          throw new TypeError('zadd: members must be { member, score }');
        args.push(scoreArgument('zadd', 'score', item.score), item.member);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asInteger, options);
  },
  zaddIncr(key, member, increment, options) {
    let args: RespArgument[];
    try {
      args = zaddHead(key, options);
      args.push('INCR', scoreArgument('zaddIncr', 'increment', increment), member);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(args, asNullableDouble, options);
  },
  zincrby(key, increment, member, options) {
    let score: RespArgument;
    try {
      score = scoreArgument('zincrby', 'increment', increment);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(['ZINCRBY', key, score, member], asDouble, options);
  },
  zscore(key, member, options) {
    return this.call(['ZSCORE', key, member], asNullableDouble, options);
  },
  zmscore(key, members, options) {
    return itemsCall(this, ['ZMSCORE', key], members, 'members', asNullableDoubles, options);
  },
  zrank(key, member, options) {
    return this.call(['ZRANK', key, member], asNullableInteger, options);
  },
  zrevrank(key, member, options) {
    return this.call(['ZREVRANK', key, member], asNullableInteger, options);
  },
  zrem(key, members, options) {
    return itemsCall(this, ['ZREM', key], members, 'members', asInteger, options);
  },
  zcard(key, options) {
    return this.call(['ZCARD', key], asInteger, options);
  },
  zcount(key, min, max, options) {
    return boundsCall(this, 'ZCOUNT', key, min, max, options);
  },
  zremrangebyscore(key, min, max, options) {
    return boundsCall(this, 'ZREMRANGEBYSCORE', key, min, max, options);
  },
  zpopmin(key: RedisArgument, countOrOptions?: number | CommandOptions, options?: CommandOptions) {
    return countedCall(this, 'ZPOPMIN', POPPED, key, countOrOptions, options);
  },
  zpopmax(key: RedisArgument, countOrOptions?: number | CommandOptions, options?: CommandOptions) {
    return countedCall(this, 'ZPOPMAX', POPPED, key, countOrOptions, options);
  },
  bzpopmin(keys, timeoutSeconds, options) {
    return blockingKeysCall(this, 'BZPOPMIN', keys, timeoutSeconds, asSortedSetPop, options);
  },
  bzpopmax(keys, timeoutSeconds, options) {
    return blockingKeysCall(this, 'BZPOPMAX', keys, timeoutSeconds, asSortedSetPop, options);
  },
};
