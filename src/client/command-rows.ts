// A `COMMAND` / `COMMAND INFO` reply (RESP2 or RESP3) as rows of the command table (CommandRow in
// command-table.ts): what `npm run gen:commands` writes into command-table.data.ts, and what
// Cluster routing reads at run time for a command the table does not know (cluster/key-lookup.ts).
// A Redis 6 row has 7 fields, without tips, key specs and subcommands: its legacy key positions
// become one key spec, and a `movablekeys` flag an `unknown` one (keys from COMMAND GETKEYS), as
// Redis 7 itself derives specs for such commands. An unexpected shape throws RespireProtocolError.
import { RespireProtocolError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import type { CommandRow } from './command-table.js';

/** Turns a COMMAND reply (RESP3 or RESP2) into rows sorted by name; throws on an unexpected shape. */
export function commandRows(reply: RespValue): CommandRow[] {
  return list(reply, 'COMMAND reply').map((element) => commandRow(element));
}

function commandRow(element: RespValue): CommandRow {
  const fields = list(element, 'command');
  const name = text(fields[0], 'command name');
  const at = (index: number) => {
    const value = fields[index];
    if (value === undefined)
      throw new RespireProtocolError(`${name}: no element ${index} in its COMMAND entry`);
    return value;
  };
  const flags = list(at(2), `${name} flags`).map((flag) => text(flag, `${name} flag`));
  const firstKey = integer(at(3), `${name} first key`);
  const lastKey = integer(at(4), `${name} last key`);
  const keyStep = integer(at(5), `${name} key step`);
  const aclCategories = list(at(6), `${name} ACL categories`).map((category) =>
    text(category, name).replace(/^@/, ''),
  );
  const redis6 = fields.length === REDIS_6_FIELDS;
  return [
    name,
    integer(at(1), `${name} arity`),
    flags,
    firstKey,
    lastKey,
    keyStep,
    aclCategories,
    redis6 ? [] : list(at(7), `${name} tips`).map((tip) => text(tip, `${name} tip`)),
    redis6
      ? legacyKeySpecs(flags, firstKey, lastKey, keyStep)
      : list(at(8), `${name} key specs`).map((spec) => keySpecRow(spec, name)),
    redis6
      ? []
      : list(at(9), `${name} subcommands`)
          .map((sub) => commandRow(sub))
          .sort(byName),
  ];
}

/** Fields of a Redis 6 COMMAND entry: name, arity, flags, first key, last key, step, ACL categories. */
const REDIS_6_FIELDS = 7;

/** A Redis 6 row's key positions as key specs (`lastKey` negative counts from the end). */
function legacyKeySpecs(flags: string[], firstKey: number, lastKey: number, keyStep: number): KeySpecRow[] {
  if (flags.includes('movablekeys')) return [[[], ['unknown'], ['unknown']]];
  if (firstKey <= 0) return [];
  return [[[], ['index', firstKey], ['range', lastKey < 0 ? lastKey : lastKey - firstKey, keyStep, 0]]];
}

type KeySpecRow = CommandRow[8][number];

function keySpecRow(spec: RespValue, name: string): KeySpecRow {
  const fields = record(spec, `${name} key spec`);
  const flags = list(fields.get('flags') ?? [], `${name} key spec flags`).map((flag) => text(flag, name));
  const begin = record(fields.get('begin_search') ?? null, `${name} begin_search`);
  const find = record(fields.get('find_keys') ?? null, `${name} find_keys`);
  const beginType = text(begin.get('type') ?? null, `${name} begin_search type`);
  const findType = text(find.get('type') ?? null, `${name} find_keys type`);
  const beginSpec = begin.get('spec');
  const findSpec = find.get('spec');
  const number = (from: RespValue | undefined, field: string) =>
    integer(record(from ?? null, `${name} ${field}`).get(field) ?? null, `${name} ${field}`);
  let beginRow: (string | number)[] = ['unknown'];
  if (beginType === 'index') beginRow = ['index', number(beginSpec, 'index')];
  else if (beginType === 'keyword') {
    const keyword = text(record(beginSpec ?? null, name).get('keyword') ?? null, `${name} keyword`);
    beginRow = ['keyword', keyword, number(beginSpec, 'startfrom')];
  }
  let findRow: (string | number)[] = ['unknown'];
  if (findType === 'range') {
    findRow = ['range', number(findSpec, 'lastkey'), number(findSpec, 'keystep'), number(findSpec, 'limit')];
  } else if (findType === 'keynum') {
    const keyNumIndex = number(findSpec, 'keynumidx');
    findRow = ['keynum', keyNumIndex, number(findSpec, 'firstkey'), number(findSpec, 'keystep')];
  }
  return [flags, beginRow, findRow];
}

export function byName(a: CommandRow, b: CommandRow): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function list(value: RespValue, what: string): RespValue[] {
  if (Array.isArray(value)) return value;
  if (value instanceof Set) return [...value];
  throw new RespireProtocolError(`${what}: expected an array or set, got ${describe(value)}`);
}

/** A RESP3 map, or a RESP2 flat field/value array, keyed by field name. */
function record(value: RespValue, what: string): Map<string, RespValue> {
  if (value instanceof Map) return new Map([...value].map(([key, field]) => [text(key, what), field]));
  const fields = list(value, what);
  const entries = new Map<string, RespValue>();
  for (let i = 0; i + 1 < fields.length; i += 2) entries.set(text(fields[i]!, what), fields[i + 1]!);
  return entries;
}

export function text(value: RespValue | undefined, what: string): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  throw new RespireProtocolError(`${what}: expected a string, got ${describe(value)}`);
}

function integer(value: RespValue, what: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new RespireProtocolError(`${what}: expected an integer, got ${describe(value)}`);
}

function describe(value: RespValue | undefined): string {
  if (value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}
