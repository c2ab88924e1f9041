// Connection basics: PING, ECHO.
import type { CommandOptions } from '../../transport/command.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asString, asValue, type RedisValue } from './reply.js';

export interface ConnectionCommands<V extends RedisValue = string> {
  /** PING: `'PONG'`, or the message echoed (as a string). */
  ping(message?: RedisArgument, options?: CommandOptions): Promise<string>;
  /** ECHO: the message, as data (a Buffer with `returnBuffers`). */
  echo(message: RedisArgument, options?: CommandOptions): Promise<V>;
}

export const connectionCommands: ThisType<CommandCaller> & ConnectionCommands<RedisValue> = {
  ping(message, options) {
    return this.call(message === undefined ? ['PING'] : ['PING', message], asString, options);
  },
  echo(message, options) {
    return this.call(['ECHO', message], asValue, options);
  },
};
