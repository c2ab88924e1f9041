// Regenerates src/client/command-table.data.ts from a live server's COMMAND reply (issue 3,
// "Commands"): against REDIS_URL when set, else a redis-server of its own from the test kit.
// Run with `npm run gen:commands`; the output is committed.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CommandRow } from '../src/client/command-table.js';
import { RespireClient, type RespireOptions } from '../src/index.js';
import type { RespValue } from '../src/resp/types.js';
import { startRedisServer } from '../test/kit/redis-server.js';

export const DATA_FILE = 'src/client/command-table.data.ts';

/** Turns a COMMAND reply (RESP3 or RESP2) into rows sorted by name; throws on an unexpected shape. */
export function commandRows(reply: RespValue): CommandRow[] {
  return list(reply, 'COMMAND reply').map((element) => commandRow(element));
}

function commandRow(element: RespValue): CommandRow {
  const fields = list(element, 'command');
  const name = text(fields[0], 'command name');
  const at = (index: number) => {
    const value = fields[index];
    if (value === undefined) throw new Error(`${name}: no element ${index} in its COMMAND entry`);
    return value;
  };
  const subcommands = list(at(9), `${name} subcommands`).map((sub) => commandRow(sub));
  return [
    name,
    integer(at(1), `${name} arity`),
    list(at(2), `${name} flags`).map((flag) => text(flag, `${name} flag`)),
    integer(at(3), `${name} first key`),
    integer(at(4), `${name} last key`),
    integer(at(5), `${name} key step`),
    list(at(6), `${name} ACL categories`).map((category) => text(category, name).replace(/^@/, '')),
    list(at(7), `${name} tips`).map((tip) => text(tip, `${name} tip`)),
    list(at(8), `${name} key specs`).map((spec) => keySpecRow(spec, name)),
    subcommands.sort(byName),
  ];
}

function keySpecRow(spec: RespValue, name: string): CommandRow[8][number] {
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

function byName(a: CommandRow, b: CommandRow): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function list(value: RespValue, what: string): RespValue[] {
  if (Array.isArray(value)) return value;
  if (value instanceof Set) return [...value];
  throw new Error(`${what}: expected an array or set, got ${describe(value)}`);
}

/** A RESP3 map, or a RESP2 flat field/value array, keyed by field name. */
function record(value: RespValue, what: string): Map<string, RespValue> {
  if (value instanceof Map) return new Map([...value].map(([key, field]) => [text(key, what), field]));
  const fields = list(value, what);
  const entries = new Map<string, RespValue>();
  for (let i = 0; i + 1 < fields.length; i += 2) entries.set(text(fields[i]!, what), fields[i + 1]!);
  return entries;
}

function text(value: RespValue | undefined, what: string): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  throw new Error(`${what}: expected a string, got ${describe(value)}`);
}

function integer(value: RespValue, what: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new Error(`${what}: expected an integer, got ${describe(value)}`);
}

function describe(value: RespValue | undefined): string {
  if (value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

/** The data module's text: one JSON row per line inside a template literal, which biome leaves alone. */
export function renderDataFile(rows: readonly CommandRow[], serverVersion: string): string {
  const lines = [...rows].sort(byName).map((row) => JSON.stringify(row));
  for (const line of lines) {
    if (/[`\\]|\$\{/.test(line)) throw new Error(`cannot embed in a template literal: ${line.slice(0, 80)}`);
  }
  return [
    `// Generated by \`npm run gen:commands\` (scripts/gen-commands.ts) from the COMMAND reply of`,
    `// redis-server ${serverVersion}. Do not edit: regenerate. Row layout: CommandRow in command-table.ts.`,
    '',
    '/** The redis-server version whose COMMAND reply this table holds. */',
    `export const COMMAND_TABLE_SERVER_VERSION = '${serverVersion}';`,
    '',
    '/** A JSON array of commands, one per line, sorted by name, subcommands nested. */',
    `export const COMMAND_TABLE_ROWS = \`[`,
    lines.join(',\n'),
    ']`;',
    '',
  ].join('\n');
}

/** `redis_version` from an INFO reply. */
export function serverVersionOf(info: RespValue): string {
  const match = /^redis_version:(\S+)/m.exec(text(info, 'INFO reply'));
  if (match === null) throw new Error('INFO server has no redis_version');
  return match[1]!;
}

function clientOptionsFromUrl(url: string): RespireOptions {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error(`REDIS_URL must be redis://… or rediss://…, got ${parsed.protocol}`);
  }
  const options: RespireOptions = {
    endpoints: [{ host: parsed.hostname, port: Number(parsed.port || 6379) }],
  };
  if (parsed.protocol === 'rediss:') options.tls = true;
  if (parsed.username !== '') options.username = decodeURIComponent(parsed.username);
  if (parsed.password !== '') options.password = decodeURIComponent(parsed.password);
  return options;
}

async function main(): Promise<void> {
  const url = process.env.REDIS_URL;
  const server = url === undefined ? await startRedisServer() : undefined;
  try {
    const options: RespireOptions =
      server === undefined ? clientOptionsFromUrl(url!) : { endpoints: [`${server.host}:${server.port}`] };
    const client = await RespireClient.connect(options);
    try {
      const rows = commandRows(await client.send(['COMMAND']));
      const version = serverVersionOf(await client.send(['INFO', 'server']));
      const target = path.resolve(process.cwd(), DATA_FILE);
      writeFileSync(target, renderDataFile(rows, version));
      const subcommands = rows.reduce((sum, row) => sum + row[9].length, 0);
      console.log(`${DATA_FILE}: ${rows.length} commands, ${subcommands} subcommands, redis ${version}`);
    } finally {
      await client.close();
    }
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
