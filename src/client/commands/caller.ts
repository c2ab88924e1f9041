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
  /**
   * True for a transaction or a batch: a command queued there is sent, and answered, only with all
   * the others, so no command can wait on an earlier one's reply (scripting.ts sends EVAL there).
   */
  readonly queuesCommands?: boolean;
}

/** A key or value argument: strings are sent as UTF-8, Buffers as they are. */
export type RedisArgument = string | Buffer;
