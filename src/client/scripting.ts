// Lua scripts by SHA1 (issue 3): `defineScript(lua).run(keys, args)` sends EVALSHA and, only when
// the server answers that it has not cached the script, EVAL once. That answer means the script
// did not run, so the EVAL is the first execution, never a retry of a write that may have happened.
// Where no reply can be awaited before the script has to run (a transaction, a batch,
// fireAndForget), `run` sends EVAL with the source at once (issue 19 #7, #8).
import { createHash } from 'node:crypto';
import { RespireServerError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { CommandFlags, type CommandOptions } from '../transport/command.js';
import type { CommandCaller, RedisArgument } from './commands/caller.js';

/** A script argument (ARGV): strings and Buffers as they are, numbers as decimal text. */
export type ScriptArgument = RedisArgument | number | bigint;

/** How `defineScript` sends a script. */
export interface ScriptOptions {
  /** Send EVALSHA_RO/EVAL_RO: the script may not write (Redis 7), so replicas may run it. */
  readOnly?: boolean | undefined;
}

/** `EVAL script|sha numkeys key… arg…` (also EVALSHA, FCALL and their _RO forms). */
export function scriptArguments(
  command: string,
  scriptOrName: RedisArgument,
  keys: readonly RedisArgument[],
  args: readonly ScriptArgument[],
): RespArgument[] {
  return [command, scriptOrName, keys.length, ...keys, ...args];
}

/** The SHA1 Redis files a script under: lower-case hex of its bytes (SCRIPT LOAD's answer). */
export function scriptSha(lua: string | Buffer): string {
  return createHash('sha1').update(lua).digest('hex');
}

/**
 * A Lua script bound to a client (`redis.defineScript(lua)`): `run` sends EVALSHA and, only when
 * the server answers NOSCRIPT, EVAL with the source.
 */
export class RedisScript {
  /** SHA1 of the source, as SCRIPT LOAD would return it. */
  readonly sha: string;
  private readonly evalCommand: string;
  private readonly evalShaCommand: string;

  constructor(
    private readonly caller: CommandCaller,
    /** The script's Lua source. */
    readonly lua: string | Buffer,
    options: ScriptOptions = {},
  ) {
    this.sha = scriptSha(lua);
    this.evalCommand = options.readOnly === true ? 'EVAL_RO' : 'EVAL';
    this.evalShaCommand = options.readOnly === true ? 'EVALSHA_RO' : 'EVALSHA';
  }

  /**
   * Runs the script by SHA; when the server does not have it (its NOSCRIPT: nothing ran), sends
   * the source with EVAL, which also caches it. Any other outcome, error or not, is final; an
   * error reply of the script's own is never taken for the server's NOSCRIPT (`isServerNoScript`).
   * Queued in `multi()` or `batch()`, or with `fireAndForget`, it sends EVAL at once: the
   * fallback would come after the transaction or batch had run, or never, as no reply is read.
   */
  run(
    keys: readonly RedisArgument[] = [],
    args: readonly ScriptArgument[] = [],
    options?: CommandOptions,
  ): Promise<RespValue> {
    if (this.caller.queuesCommands === true || options?.fireAndForget === true) {
      return this.caller.call<RespValue>(
        scriptArguments(this.evalCommand, this.lua, keys, args),
        undefined,
        options,
      );
    }
    const bySha = this.caller.call<RespValue>(
      scriptArguments(this.evalShaCommand, this.sha, keys, args),
      undefined,
      options,
      CommandFlags.ScriptBySha,
    );
    return bySha.catch((error: unknown) => {
      if (!isServerNoScript(error)) throw error;
      return this.caller.call<RespValue>(
        scriptArguments(this.evalCommand, this.lua, keys, args),
        undefined,
        options,
      );
    });
  }
}

/**
 * The server's own reply to EVALSHA of a script it has not cached, the same text from Redis 2.6
 * through 7.x (`shared.noscripterr`). A script may fail with an error reply of its own that begins
 * with NOSCRIPT (`redis.error_reply('NOSCRIPT …')`) after it ran, so the code alone cannot tell
 * the two apart (issue 19 #9); the whole message can, unless a script returns this exact text.
 * A server that worded it differently would get no fallback: the caller sees its NOSCRIPT, and
 * the script never runs twice.
 */
const SERVER_NOSCRIPT = 'NOSCRIPT No matching script. Please use EVAL.';

function isServerNoScript(error: unknown): boolean {
  return error instanceof RespireServerError && error.message === SERVER_NOSCRIPT;
}

/**
 * The error sink of a command sent with `flags`: for a script run's EVALSHA (`ScriptBySha`) it
 * skips the server's NOSCRIPT, which the run answers with EVAL, so `redis.client.errors` counts
 * only what the caller of `run` receives.
 */
export function errorSinkFor(
  sink: ((error: unknown) => void) | undefined,
  flags: number,
): ((error: unknown) => void) | undefined {
  if (sink === undefined || (flags & CommandFlags.ScriptBySha) === 0) return sink;
  return (error) => {
    if (!isServerNoScript(error)) sink(error);
  };
}
