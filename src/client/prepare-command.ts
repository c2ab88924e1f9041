// Turns a call (arguments, reply conversion, API.md "Per-command options") into a Command record
// without sending it, so the client, batches and WATCH sessions apply one rule for options.
import { RespireConfigurationError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import {
  Command,
  CommandFlags,
  type CommandOptions,
  type ReplyTransform,
  type SettleObserver,
} from '../transport/command.js';
import { isBlockingCommand } from './command-traits.js';
import { errorSinkFor } from './scripting.js';

/** Largest timer delay Node accepts (ms): the bound of every timeout option. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Builds the record of one command. A record that must not be sent comes back already rejected
 * (an invalid `timeout`, a signal aborted beforehand): check `settled` before enqueueing it.
 * `defaultTimeoutMs` is the reply deadline when the options give none (`commandTimeout`);
 * `errorSink` hears what the command's promise rejects with; `observer` hears it settle, also
 * when it comes back already rejected, and `position` is stored for it.
 */
export function prepareCommand<T>(
  args: RespArgument[],
  transform: ReplyTransform<T> | undefined,
  options: CommandOptions | undefined,
  flags: number,
  defaultTimeoutMs: number,
  errorSink?: (error: unknown) => void,
  observer?: SettleObserver,
  position = 0,
  /** The record's class: Command, or a subclass such as the cache's CachedRead. */
  Kind: typeof Command = Command,
): Command<T> {
  let timeout = defaultTimeoutMs;
  let signal: AbortSignal | undefined;
  let invalid: RespireConfigurationError | undefined;
  if (options !== undefined) {
    if (options.timeout !== undefined) {
      if (isTimeout(options.timeout)) timeout = options.timeout;
      else invalid = invalidTimeout(options.timeout);
    }
    if (options.fireAndForget === true) flags |= CommandFlags.FireAndForget;
    signal = options.signal;
  }
  // Typed helpers that know they block (BLPOP, XREAD BLOCK) say so; the rest are looked up.
  if ((flags & CommandFlags.Blocking) === 0 && isBlockingCommand(args)) flags |= CommandFlags.Blocking;
  const command = new Kind<T>(args, flags, transform, invalid === undefined ? signal : undefined, timeout);
  command.errorSink = errorSinkFor(errorSink, flags);
  command.observer = observer;
  command.position = position;
  if (invalid !== undefined) command.reject(invalid);
  else if (signal?.aborted) command.reject(signal.reason);
  return command;
}

/** Whether `timeout` is a valid reply deadline in ms (0 = none). */
export function isTimeout(timeout: unknown): timeout is number {
  return (
    typeof timeout === 'number' && Number.isInteger(timeout) && timeout >= 0 && timeout <= MAX_TIMEOUT_MS
  );
}

export function invalidTimeout(timeout: unknown): RespireConfigurationError {
  return new RespireConfigurationError(
    'timeout',
    timeout,
    `an integer number of ms from 0 through ${MAX_TIMEOUT_MS}`,
  );
}
