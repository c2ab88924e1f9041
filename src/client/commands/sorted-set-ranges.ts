// Reading sorted sets by range: ZRANGE with BYSCORE/BYLEX/REV/LIMIT/WITHSCORES, and the older
// ZRANGEBYSCORE. With WITHSCORES the members come with numeric scores in both protocols.
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import type { CommandOptions, ReplyTransform } from '../../transport/command.js';
import { checkExclusive, checkOptionKeys, flagOption, integerOption, scoreArgument } from './arguments.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asDouble, asValue, asValues, pairs, type RedisValue } from './reply.js';

/** A member with its score. */
export interface ScoredMember<V> {
  /** The member. */
  member: V;
  /** Its score. */
  score: number;
}

/** A score bound: a number (±Infinity allowed) or Redis's text (`'(1'` exclusive, `'-inf'`). */
export type ScoreBound = number | string;

/** LIMIT offset count: skip `offset` matches, return at most `count` (negative: all the rest). */
export interface RangeLimit {
  /** Matches to skip. */
  offset: number;
  /** Matches to return at most (negative: all after `offset`). */
  count: number;
}

export interface ZRangeOptions extends CommandOptions {
  /** `start`/`stop` are score bounds (numbers, `'(1'`, `'-inf'`, `'+inf'`). */
  BYSCORE?: boolean;
  /** `start`/`stop` are lexical bounds (`'[a'`, `'(a'`, `'-'`, `'+'`). */
  BYLEX?: boolean;
  /** Highest first; with BYSCORE/BYLEX, `start` is then the upper bound. */
  REV?: boolean;
  /** Only with BYSCORE or BYLEX. */
  LIMIT?: RangeLimit;
  /** Members with their scores (not with BYLEX). */
  WITHSCORES?: boolean;
}

export interface ZRangeByScoreOptions extends CommandOptions {
  /** LIMIT offset count. */
  LIMIT?: RangeLimit;
  /** WITHSCORES: answer `{ member, score }` objects. */
  WITHSCORES?: boolean;
}

/** A ZRANGE start/stop: an index, a score bound, or a lexical bound, depending on the options. */
export type RangeBound = number | RedisArgument;

export interface SortedSetRangeCommands<V extends RedisValue = string> {
  /** ZRANGE … WITHSCORES: members with their scores, in range order. */
  zrange(
    key: RedisArgument,
    start: RangeBound,
    stop: RangeBound,
    options: ZRangeOptions & { WITHSCORES: true },
  ): Promise<ScoredMember<V>[]>;
  /**
   * ZRANGE: members by index (default; negative counts from the end), score (BYSCORE) or lexical
   * order (BYLEX), in range order; `[]` for a missing key.
   */
  zrange(
    key: RedisArgument,
    start: RangeBound,
    stop: RangeBound,
    options?: ZRangeOptions & { WITHSCORES?: false },
  ): Promise<V[]>;
  /** ZRANGEBYSCORE … WITHSCORES: members scoring from `min` to `max`, with scores. */
  zrangebyscore(
    key: RedisArgument,
    min: ScoreBound,
    max: ScoreBound,
    options: ZRangeByScoreOptions & { WITHSCORES: true },
  ): Promise<ScoredMember<V>[]>;
  /** ZRANGEBYSCORE: members scoring from `min` to `max`, lowest first. */
  zrangebyscore(
    key: RedisArgument,
    min: ScoreBound,
    max: ScoreBound,
    options?: ZRangeByScoreOptions & { WITHSCORES?: false },
  ): Promise<V[]>;
}

/** `[member, score]` pairs, nested (RESP3) or flat (RESP2), as ScoredMember objects. */
export function asScoredMembers(reply: RespValue): ScoredMember<RedisValue>[] {
  return pairs(reply).map(([member, score]) => ({ member: asValue(member), score: asDouble(score) }));
}

const ZRANGE_OPTIONS = ['BYSCORE', 'BYLEX', 'REV', 'LIMIT', 'WITHSCORES'];

function lexBound(helper: string, name: string, value: unknown): RedisArgument {
  if ((typeof value === 'string' && value.length > 0) || Buffer.isBuffer(value)) return value;
  throw new TypeError(`${helper}: ${name} must be a lexical bound like '[a', '(a', '-' or '+'`);
}

function pushLimit(helper: string, args: RespArgument[], limit: unknown): void {
  if (limit === null || typeof limit !== 'object') {
    throw new TypeError(`${helper}: LIMIT must be { offset, count }`);
  }
  const { offset, count } = limit as RangeLimit;
  args.push(
    'LIMIT',
    integerOption(helper, 'LIMIT.offset', offset, 0),
    integerOption(helper, 'LIMIT.count', count, -1),
  );
}

/** ZRANGE's default `start stop`: indexes, negative ones counting from the end. */
function pushIndexes(args: RespArgument[], start: unknown, stop: unknown): RespArgument[] {
  args.push(
    integerOption('zrange', 'start', start, Number.MIN_SAFE_INTEGER),
    integerOption('zrange', 'stop', stop, Number.MIN_SAFE_INTEGER),
  );
  return args;
}

function zrangeArguments(
  key: RedisArgument,
  start: unknown,
  stop: unknown,
  options: ZRangeOptions | undefined,
) {
  const args: RespArgument[] = ['ZRANGE', key];
  if (options === undefined) return pushIndexes(args, start, stop);
  checkOptionKeys('zrange', options, ZRANGE_OPTIONS);
  checkExclusive('zrange', options, ['BYSCORE', 'BYLEX']);
  checkExclusive('zrange', options, ['BYLEX', 'WITHSCORES']);
  const byScore = flagOption('zrange', 'BYSCORE', options.BYSCORE);
  const byLex = flagOption('zrange', 'BYLEX', options.BYLEX);
  if (byScore)
    args.push(scoreArgument('zrange', 'start', start), scoreArgument('zrange', 'stop', stop), 'BYSCORE');
  else if (byLex) args.push(lexBound('zrange', 'start', start), lexBound('zrange', 'stop', stop), 'BYLEX');
  else pushIndexes(args, start, stop);
  if (flagOption('zrange', 'REV', options.REV)) args.push('REV');
  if (options.LIMIT !== undefined) {
    if (!byScore && !byLex) throw new TypeError('zrange: LIMIT needs BYSCORE or BYLEX');
    pushLimit('zrange', args, options.LIMIT);
  }
  if (flagOption('zrange', 'WITHSCORES', options.WITHSCORES)) args.push('WITHSCORES');
  return args;
}

export const sortedSetRangeCommands: ThisType<CommandCaller> & SortedSetRangeCommands<RedisValue> = {
  zrange(key: RedisArgument, start: RangeBound, stop: RangeBound, options?: ZRangeOptions): Promise<never> {
    let args: RespArgument[];
    try {
      args = zrangeArguments(key, start, stop, options);
    } catch (error) {
      return Promise.reject(error);
    }
    const transform: ReplyTransform<unknown> = options?.WITHSCORES === true ? asScoredMembers : asValues;
    return this.call(args, transform, options) as Promise<never>;
  },
  zrangebyscore(
    key: RedisArgument,
    min: ScoreBound,
    max: ScoreBound,
    options?: ZRangeByScoreOptions,
  ): Promise<never> {
    const args: RespArgument[] = ['ZRANGEBYSCORE', key];
    try {
      args.push(scoreArgument('zrangebyscore', 'min', min), scoreArgument('zrangebyscore', 'max', max));
      if (options !== undefined) {
        checkOptionKeys('zrangebyscore', options, ['LIMIT', 'WITHSCORES']);
        if (flagOption('zrangebyscore', 'WITHSCORES', options.WITHSCORES)) args.push('WITHSCORES');
        if (options.LIMIT !== undefined) pushLimit('zrangebyscore', args, options.LIMIT);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const transform: ReplyTransform<unknown> = options?.WITHSCORES === true ? asScoredMembers : asValues;
    return this.call(args, transform, options) as Promise<never>;
  },
};
