// Connection and server basics: PING, ECHO.
import type { CommandOptions } from '../../transport/command.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asString } from './reply.js';

export interface ConnectionCommands {
  /** PING: `'PONG'`, or the message echoed. */
  ping(message?: RedisArgument, options?: CommandOptions): Promise<string>;
  echo(message: RedisArgument, options?: CommandOptions): Promise<string>;
}

export const connectionCommands: ThisType<CommandCaller> & ConnectionCommands = {
  ping(message, options) {
    return this.call(message === undefined ? ['PING'] : ['PING', message], asString, options);
  },
  echo(message, options) {
    return this.call(['ECHO', message], asString, options);
  },
};
