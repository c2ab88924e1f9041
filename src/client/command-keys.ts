// Which arguments of a command line are keys (PROTOCOL.md §2.2), from the key specs of the
// command table, following the server's own reading of them (getKeysUsingKeySpecs in Redis 7.0's
// db.c), so key prefixing and Cluster routing agree with `COMMAND GETKEYS`.
import type { RespArgument } from '../resp/encoder.js';
import { argumentText, type CommandSpec, commandSpecOf, type KeySpec } from './command-table.js';

export interface CommandKeysOptions {
  /**
   * Also report arguments that key specs flag `not_key`: the shard channel of SPUBLISH,
   * SSUBSCRIBE and SUNSUBSCRIBE, which routes by its slot but is not a key. Default false.
   */
  includeNotKeys?: boolean;
}

/**
 * The indexes in `args` (0 being the command name) of the key arguments, in key-spec order.
 *
 * - `[]` for keyless commands, and for malformed command lines (wrong arity, a key count that is
 *   not a non-negative integer or points past the end), which the server would reject anyway.
 * - `undefined` when the table cannot tell: an unknown command or subcommand, or a key spec that
 *   is `unknown` or `incomplete`. Ask the server with `COMMAND GETKEYS` then.
 *
 * SORT, SORT_RO and MIGRATE, whose specs are `unknown`/`incomplete` on Redis 7.0, are read the
 * way the server's own key extractors read them.
 */
export function commandKeys(
  args: readonly RespArgument[],
  options?: CommandKeysOptions,
): number[] | undefined {
  const spec = commandSpecOf(args);
  return spec === undefined ? undefined : specKeys(spec, args, options);
}

/** commandKeys for a given spec (the one `args` resolve to); exported for tests of odd specs. */
export function specKeys(
  spec: CommandSpec,
  args: readonly RespArgument[],
  options?: CommandKeysOptions,
): number[] | undefined {
  const extractor = NATIVE_EXTRACTORS.get(spec.name);
  if (extractor !== undefined) return extractor(args);
  const arityFits = spec.arity >= 0 ? args.length === spec.arity : args.length >= -spec.arity;
  if (!arityFits) return [];
  const includeNotKeys = options?.includeNotKeys === true;
  const keys: number[] = [];
  for (const keySpec of spec.keySpecs) {
    if (!includeNotKeys && keySpec.flags.includes('not_key')) continue;
    if (keySpec.flags.includes('incomplete')) return undefined;
    const outcome = addSpecKeys(keySpec, args, keys);
    if (outcome === 'unknown') return undefined;
    if (outcome === 'invalid') return [];
  }
  return keys;
}

type SpecOutcome = 'found' | 'unknown' | 'invalid';

/** Appends the key indexes one spec finds; 'invalid' when they fall outside the arguments. */
function addSpecKeys(spec: KeySpec, args: readonly RespArgument[], keys: number[]): SpecOutcome {
  const count = args.length;
  const begin = spec.beginSearch;
  let first: number;
  if (begin.type === 'index') first = begin.index;
  else if (begin.type === 'keyword') {
    const found = findKeyword(args, begin.keyword, begin.startFrom);
    // A missing optional keyword (no STORE, no KEYS) means this spec names no key.
    if (found === -1) return 'found';
    first = found + 1;
  } else return 'unknown';
  const find = spec.findKeys;
  let last: number;
  let step: number;
  if (find.type === 'range') {
    step = find.keyStep;
    if (find.lastKey >= 0) last = first + find.lastKey;
    else if (find.limit <= 1) last = count + find.lastKey;
    else last = first + Math.floor((count - first) / find.limit) + find.lastKey;
  } else if (find.type === 'keynum') {
    step = find.keyStep;
    const countIndex = first + find.keyNumIndex;
    const keyCount = countIndex < count ? keyCountOf(args[countIndex]!) : -1;
    if (keyCount < 0) return 'invalid';
    first += find.firstKey;
    last = first + keyCount - 1;
  } else return 'unknown';
  if (last >= count || last < first || first >= count || step < 1) return 'invalid';
  for (let i = first; i <= last; i += step) keys.push(i);
  return 'found';
}

/**
 * The index of `keyword` (case-insensitive) searched from `startFrom` forwards, or from
 * `args.length + startFrom` backwards when negative; never the command name; -1 when absent.
 * As in the server, a forward search stops before the last argument, which could start no keys.
 */
function findKeyword(args: readonly RespArgument[], keyword: string, startFrom: number): number {
  const start = startFrom > 0 ? startFrom : args.length + startFrom;
  const end = startFrom > 0 ? args.length - 1 : 0;
  const direction = start <= end ? 1 : -1;
  const wanted = keyword.toLowerCase();
  for (let i = start; i !== end; i += direction) {
    if (i >= args.length || i < 1) break;
    if (argumentText(args[i]!).toLowerCase() === wanted) return i;
  }
  return -1;
}

/** A key count argument as the server parses it (a canonical decimal integer), or -1. */
function keyCountOf(arg: RespArgument): number {
  const text = argumentText(arg);
  if (!/^(0|-?[1-9][0-9]{0,15})$/.test(text)) return -1;
  const value = Number(text);
  return value >= 0 ? value : -1;
}

function matches(arg: RespArgument | undefined, word: string): boolean {
  return arg !== undefined && argumentText(arg).toLowerCase() === word;
}

/** SORT: the sorted key, then the destination of the last STORE (sortGetKeys in Redis's db.c). */
function sortKeys(args: readonly RespArgument[]): number[] {
  if (args.length < 2) return [];
  const keys = [1];
  let store = -1;
  for (let i = 2; i < args.length; i++) {
    if (matches(args[i], 'limit')) i += 2;
    else if (matches(args[i], 'get') || matches(args[i], 'by')) i += 1;
    else if (matches(args[i], 'store') && i + 1 < args.length) store = i + 1;
  }
  if (store !== -1) keys.push(store);
  return keys;
}

/** SORT_RO: only the sorted key (BY and GET name patterns, not keys). */
function sortReadOnlyKeys(args: readonly RespArgument[]): number[] {
  return args.length < 2 ? [] : [1];
}

/**
 * MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS key…]:
 * the key at 3, or every argument after KEYS (migrateGetKeys in Redis's cluster.c).
 */
function migrateKeys(args: readonly RespArgument[]): number[] {
  if (args.length < 6) return [];
  for (let i = 6; i < args.length; i++) {
    if (matches(args[i], 'keys')) {
      // The server refuses KEYS next to a non-empty key argument.
      if (argumentText(args[3]!).length > 0) return [];
      return Array.from({ length: args.length - i - 1 }, (_, k) => i + 1 + k);
    }
    if (matches(args[i], 'auth')) i += 1;
    else if (matches(args[i], 'auth2')) i += 2;
  }
  return [3];
}

const NATIVE_EXTRACTORS = new Map<string, (args: readonly RespArgument[]) => number[]>([
  ['sort', sortKeys],
  ['sort_ro', sortReadOnlyKeys],
  ['migrate', migrateKeys],
]);
