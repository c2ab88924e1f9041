// The one method every command family calls; implemented by Commander. Families depend on this
// interface rather than on Commander so that Commander can import them without a cycle.
import type { RespArgument } from '../../resp/encoder.js';
import type { CommandOptions, ReplyTransform } from '../../transport/command.js';

export interface CommandCaller {
  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags?: number,
  ): Promise<T>;
}

/** A key or value argument: strings are sent as UTF-8, Buffers as they are. */
export type RedisArgument = string | Buffer;
