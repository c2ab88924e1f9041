// String commands: GET, SET.
import type { CommandOptions } from '../../transport/command.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asNullableString } from './reply.js';

export interface StringCommands {
  /** GET: the value, or null when the key does not exist. */
  get(key: RedisArgument, options?: CommandOptions): Promise<string | null>;
  /** SET: `'OK'`, or null when a condition (NX/XX) prevented it. */
  set(key: RedisArgument, value: RedisArgument | number, options?: CommandOptions): Promise<string | null>;
}

export const stringCommands: ThisType<CommandCaller> & StringCommands = {
  get(key, options) {
    return this.call(['GET', key], asNullableString, options);
  },
  set(key, value, options) {
    return this.call(['SET', key, value], asNullableString, options);
  },
};
