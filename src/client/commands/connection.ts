// Connection basics: PING, ECHO.
import type { CommandOptions } from '../../transport/command.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asString, asValue, type RedisValue } from './reply.js';

export interface ConnectionCommands<V extends RedisValue = string> {
  /** PING: `'PONG'`, or the message echoed (as a string). */
  ping(message?: RedisArgument, options?: CommandOptions): Promise<string>;
  /** PING with per-command options only: `'PONG'`. */
  ping(options: CommandOptions): Promise<string>;
  /** ECHO: the message, as data (a Buffer with `returnBuffers`). */
  echo(message: RedisArgument, options?: CommandOptions): Promise<V>;
}

/** An options object where an optional first argument was expected (`ping({ signal })`). */
export function isCommandOptions(value: unknown): value is CommandOptions {
  return value !== null && typeof value === 'object' && !(value instanceof Uint8Array);
}

export const connectionCommands: ThisType<CommandCaller> & ConnectionCommands<RedisValue> = {
  ping(message?: RedisArgument | CommandOptions, options?: CommandOptions) {
    if (message === undefined || isCommandOptions(message))
      return this.call(['PING'], asString, message ?? options);
    return this.call(['PING', message], asString, options);
  },
  echo(message, options) {
    return this.call(['ECHO', message], asValue, options);
  },
};
