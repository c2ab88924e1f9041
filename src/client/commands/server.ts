// Server and client-connection basics: INFO (raw and parsed), TIME, DBSIZE, FLUSHDB/FLUSHALL,
// and CLIENT ID/GETNAME/SETNAME/INFO/LIST.
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import type { CommandOptions, ReplyTransform } from '../../transport/command.js';
import { checkExclusive, checkOptionKeys, flagOption } from './arguments.js';
import type { CommandCaller } from './caller.js';
import { isCommandOptions } from './connection.js';
import { asInteger, asNullableString, asOk, asString, elements, unexpected } from './reply.js';

/** TIME's answer: the server's clock. */
export interface ServerTime {
  /** Whole seconds since the Unix epoch. */
  seconds: number;
  /** Microseconds into the current second. */
  microseconds: number;
}

export interface FlushOptions extends CommandOptions {
  /** Free memory in the background. */
  ASYNC?: boolean;
  /** Free memory before replying. */
  SYNC?: boolean;
}

/** INFO parsed: section name (lower case, e.g. `server`, `keyspace`) → field → value text. */
export type InfoSections = Record<string, Record<string, string>>;

export interface ServerCommands {
  /** INFO: the report text (`# Server`, `field:value` lines), for one section or the default set. */
  info(section?: string | CommandOptions, options?: CommandOptions): Promise<string>;
  /** INFO, parsed with `parseInfo`: `(await redis.infoSections('server')).server.redis_version`. */
  infoSections(section?: string | CommandOptions, options?: CommandOptions): Promise<InfoSections>;
  /** TIME: the server clock, as whole seconds and the microseconds within that second. */
  time(options?: CommandOptions): Promise<ServerTime>;
  /** DBSIZE: the number of keys in the current database. */
  dbsize(options?: CommandOptions): Promise<number>;
  /** FLUSHDB: removes every key of the current database; `'OK'`. */
  flushdb(options?: FlushOptions): Promise<'OK'>;
  /** FLUSHALL: removes every key of every database; `'OK'`. */
  flushall(options?: FlushOptions): Promise<'OK'>;
  /** CLIENT ID: this connection's ID (with the shared pipeline, the shared connection's). */
  clientId(options?: CommandOptions): Promise<number>;
  /** CLIENT GETNAME: the connection's name, or null when it has none. */
  clientGetName(options?: CommandOptions): Promise<string | null>;
  /** CLIENT INFO: this connection's fields (`id`, `addr`, `name`, `db`, `resp`, …). */
  clientInfo(options?: CommandOptions): Promise<Record<string, string>>;
  /** CLIENT LIST: one record of fields per connection to the server. */
  clientList(options?: CommandOptions): Promise<Record<string, string>[]>;
}

/**
 * Parses INFO text: `# Section` headers start a section (named in lower case), `field:value`
 * lines fill it; the value is everything after the first colon. Lines before any header go
 * to section `''`.
 */
export function parseInfo(text: string): InfoSections {
  const sections: InfoSections = {};
  let current: Record<string, string> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('#')) {
      current = sections[line.slice(1).trim().toLowerCase()] = {};
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    current ??= sections[''] = {};
    current[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return sections;
}

/** One CLIENT LIST/CLIENT INFO line: `field=value` pairs separated by spaces. */
function parseClientLine(line: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const pair of line.trim().split(' ')) {
    const equals = pair.indexOf('=');
    if (equals > 0) fields[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return fields;
}

function asTime(reply: RespValue) {
  const [seconds, microseconds] = elements(reply);
  if (seconds === undefined || microseconds === undefined) throw unexpected(reply, '[seconds, microseconds]');
  return { seconds: Number(asString(seconds)), microseconds: Number(asString(microseconds)) };
}

function asInfoSections(reply: RespValue): InfoSections {
  return parseInfo(asString(reply));
}

function asClientInfo(reply: RespValue): Record<string, string> {
  return parseClientLine(asString(reply));
}

function asClientList(reply: RespValue): Record<string, string>[] {
  return asString(reply)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(parseClientLine);
}

/** `INFO [section]`, where the options may stand in the section's place (`info({ signal })`). */
function infoCall<T>(
  caller: CommandCaller,
  transform: ReplyTransform<T>,
  section: string | CommandOptions | undefined,
  options: CommandOptions | undefined,
): Promise<T> {
  if (section === undefined || isCommandOptions(section))
    return caller.call(['INFO'], transform, section ?? options);
  return caller.call(['INFO', section], transform, options);
}

function flushCall(caller: CommandCaller, name: string, options: FlushOptions | undefined) {
  const args: RespArgument[] = [name];
  if (options !== undefined) {
    const helper = name.toLowerCase();
    try {
      checkOptionKeys(helper, options, ['ASYNC', 'SYNC']);
      checkExclusive(helper, options, ['ASYNC', 'SYNC']);
      if (flagOption(helper, 'ASYNC', options.ASYNC)) args.push('ASYNC');
      if (flagOption(helper, 'SYNC', options.SYNC)) args.push('SYNC');
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return caller.call(args, asOk, options);
}

export const serverCommands: ThisType<CommandCaller> & ServerCommands = {
  info(section, options) {
    return infoCall(this, asString, section, options);
  },
  infoSections(section, options) {
    return infoCall(this, asInfoSections, section, options);
  },
  time(options) {
    return this.call(['TIME'], asTime, options);
  },
  dbsize(options) {
    return this.call(['DBSIZE'], asInteger, options);
  },
  flushdb(options) {
    return flushCall(this, 'FLUSHDB', options);
  },
  flushall(options) {
    return flushCall(this, 'FLUSHALL', options);
  },
  clientId(options) {
    return this.call(['CLIENT', 'ID'], asInteger, options);
  },
  clientGetName(options) {
    return this.call(['CLIENT', 'GETNAME'], asNullableString, options);
  },
  clientInfo(options) {
    return this.call(['CLIENT', 'INFO'], asClientInfo, options);
  },
  clientList(options) {
    return this.call(['CLIENT', 'LIST'], asClientList, options);
  },
};
