// Argument building and validation shared by the typed helpers. Everything here throws; a helper
// catches it and returns a rejected promise, so a bad argument never throws from the call itself
// and nothing is sent. Messages name the helper and the argument or option at fault.
import { RespireConfigurationError } from '../../errors.js';
import type { RespArgument } from '../../resp/encoder.js';
import type { RedisArgument } from './caller.js';

/** A value to store: data strings, or numbers written as decimal text. */
export type RedisInput = RedisArgument | number;

/** Field/value or key/value pairs: an object, a Map, or an array of `[name, value]` tuples. */
export type RedisPairs =
  | Readonly<Record<string, RedisInput>>
  | ReadonlyMap<RedisArgument, RedisInput>
  | readonly (readonly [RedisArgument, RedisInput])[];

/** One key or several: multi-key commands take either. */
export type RedisKeys = RedisArgument | readonly RedisArgument[];

/** The per-command options (API.md), allowed next to a command's own upper-case options. */
const COMMAND_OPTION_KEYS = ['signal', 'timeout', 'fireAndForget'];

/**
 * Throws when `options` is not an object or holds a key that is neither one of the command's
 * options (`allowed`, upper case like Redis's tokens) nor a per-command option (`signal`,
 * `timeout`, `fireAndForget`): a misspelt option such as `{ ex: 10 }` fails instead of being
 * ignored.
 */
export function checkOptionKeys(helper: string, options: unknown, allowed: readonly string[]): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new RespireConfigurationError(helper, options, `an options object with ${allowed.join(', ')}`);
  }
  for (const key in options) {
    if (allowed.includes(key) || COMMAND_OPTION_KEYS.includes(key)) continue;
    if ((options as Record<string, unknown>)[key] === undefined) continue;
    throw new RespireConfigurationError(
      `${helper}.${key}`,
      (options as Record<string, unknown>)[key],
      `no such option; known: ${allowed.join(', ')}`,
    );
  }
}

/**
 * Throws unless at most one of the given options is set. Runs on every command given options
 * (SET … EX), so it allocates nothing unless it throws.
 */
export function checkExclusive(helper: string, options: object, keys: readonly string[]): void {
  let count = 0;
  for (const key of keys) if ((options as Record<string, unknown>)[key] !== undefined) count++;
  if (count < 2) return;
  const set = keys.filter((key) => (options as Record<string, unknown>)[key] !== undefined);
  throw new RespireConfigurationError(
    `${helper}.${set[1]}`,
    set.join(' and '),
    `at most one of ${keys.join(', ')}`,
  );
}

/** A flag option: `true` to send it, `false`/`undefined` to leave it out. */
export function flagOption(helper: string, name: string, value: unknown): boolean {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  throw new RespireConfigurationError(`${helper}.${name}`, value, 'true or false');
}

/** An integer option or argument from `min` up to the safe-integer bound. */
export function integerOption(helper: string, name: string, value: unknown, min: number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  throw new RespireConfigurationError(`${helper}.${name}`, value, `an integer from ${min} up`);
}

/** An integer positional argument (a count, an index); throws a TypeError naming it. */
export function integerArgument(helper: string, name: string, value: unknown, min = -(2 ** 53 - 1)): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  throw new TypeError(`${helper}: ${name} must be an integer from ${min} up, got ${String(value)}`);
}

/** A finite number positional argument (an increment, a timeout in seconds). */
export function numberArgument(helper: string, name: string, value: unknown, min = -Infinity): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= min) return value;
  throw new TypeError(`${helper}: ${name} must be a finite number from ${min} up, got ${String(value)}`);
}

/**
 * A score or score bound: numbers (±Infinity as `+inf`/`-inf`), or Redis's own text such as
 * `'(1.5'` (exclusive) or `'-inf'`. NaN is refused.
 */
export function scoreArgument(helper: string, name: string, value: unknown): RespArgument {
  if (typeof value === 'number') {
    if (value === Number.POSITIVE_INFINITY) return '+inf';
    if (value === Number.NEGATIVE_INFINITY) return '-inf';
    if (!Number.isNaN(value)) return value;
  } else if (typeof value === 'string' && value.length > 0) return value;
  throw new TypeError(
    `${helper}: ${name} must be a number or a score string like '(1', got ${String(value)}`,
  );
}

/** One of a few literal words (`'LEFT'`, `'BEFORE'`, …), in any case; sent upper-cased. */
export function wordArgument<W extends string>(
  helper: string,
  name: string,
  value: unknown,
  words: readonly W[],
): W {
  if (typeof value === 'string') {
    const upper = value.toUpperCase() as W;
    if (words.includes(upper)) return upper;
  }
  throw new TypeError(`${helper}: ${name} must be one of ${words.join(', ')}, got ${String(value)}`);
}

/** At least one element: commands like DEL and SADD refuse an empty list. */
export function nonEmpty<T>(helper: string, name: string, values: readonly T[]): readonly T[] {
  if (Array.isArray(values) && values.length > 0) return values;
  throw new TypeError(`${helper}: ${name} must be a non-empty array`);
}

/** The keys of a multi-key command as a non-empty list. */
export function keyList(helper: string, keys: RedisKeys): RedisArgument[] {
  if (!Array.isArray(keys)) return [keys as RedisArgument];
  if (keys.length === 0) throw new TypeError(`${helper}: keys must not be empty`);
  return keys as RedisArgument[];
}

/** Appends pairs as `name value name value …`; throws on an empty or malformed input. */
export function pushPairs(helper: string, args: RespArgument[], input: RedisPairs): RespArgument[] {
  const start = args.length;
  if (input instanceof Map) {
    for (const [name, value] of input) args.push(name, value);
  } else if (Array.isArray(input)) {
    for (const pair of input as readonly (readonly [RedisArgument, RedisInput])[]) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new TypeError(`${helper}: each pair must be a [name, value] array`);
      }
      args.push(pair[0], pair[1]);
    }
  } else if (input !== null && typeof input === 'object') {
    for (const name of Object.keys(input)) args.push(name, (input as Record<string, RedisInput>)[name]!);
  } else {
    throw new TypeError(`${helper}: expected an object, a Map or an array of [name, value] pairs`);
  }
  if (args.length === start) throw new TypeError(`${helper}: at least one [name, value] pair is needed`);
  return args;
}
