// Scripting and functions: EVAL/EVALSHA (and the Redis 7 _RO forms), SCRIPT LOAD/EXISTS/FLUSH,
// FCALL/FCALL_RO, and `defineScript`, whose runs fall back from EVALSHA to EVAL (../scripting.ts).
import type { RespValue } from '../../resp/types.js';
import type { CommandOptions } from '../../transport/command.js';
import { RedisScript, type ScriptArgument, type ScriptOptions, scriptArguments } from '../scripting.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asBooleans, asString } from './reply.js';

export interface ScriptingCommands {
  /** EVAL: runs Lua source; resolves with the script's reply as it arrives (API.md "Replies"). */
  eval(
    script: RedisArgument,
    keys?: readonly RedisArgument[],
    args?: readonly ScriptArgument[],
    options?: CommandOptions,
  ): Promise<RespValue>;
  /** EVALSHA: runs a cached script; rejects with code `NOSCRIPT` when the server lacks it. */
  evalsha(
    sha: string,
    keys?: readonly RedisArgument[],
    args?: readonly ScriptArgument[],
    options?: CommandOptions,
  ): Promise<RespValue>;
  /** EVAL_RO: as `eval`, for a script that must not write. */
  evalRo(
    script: RedisArgument,
    keys?: readonly RedisArgument[],
    args?: readonly ScriptArgument[],
    options?: CommandOptions,
  ): Promise<RespValue>;
  /** EVALSHA_RO: as `evalsha`, for a script that must not write. */
  evalshaRo(
    sha: string,
    keys?: readonly RedisArgument[],
    args?: readonly ScriptArgument[],
    options?: CommandOptions,
  ): Promise<RespValue>;
  /** SCRIPT LOAD: caches the script; resolves with its SHA1. */
  scriptLoad(script: RedisArgument, options?: CommandOptions): Promise<string>;
  /** SCRIPT EXISTS: whether each SHA1 is cached, in the order asked. */
  scriptExists(shas: readonly string[], options?: CommandOptions): Promise<boolean[]>;
  /** SCRIPT FLUSH: empties the script cache (`ASYNC` frees it in the background). */
  scriptFlush(mode?: 'ASYNC' | 'SYNC', options?: CommandOptions): Promise<string>;
  /** FCALL: calls a function of a loaded library. */
  fcall(
    name: RedisArgument,
    keys?: readonly RedisArgument[],
    args?: readonly ScriptArgument[],
    options?: CommandOptions,
  ): Promise<RespValue>;
  /** FCALL_RO: calls a function flagged `no-writes`. */
  fcallRo(
    name: RedisArgument,
    keys?: readonly RedisArgument[],
    args?: readonly ScriptArgument[],
    options?: CommandOptions,
  ): Promise<RespValue>;
  /**
   * A script bound to this client: `run(keys, args)` sends EVALSHA and, only on the server's own
   * NOSCRIPT, EVAL once; in a transaction or batch, or with `fireAndForget`, EVAL at once
   * (../scripting.ts). Nothing is sent until the first run.
   */
  defineScript(lua: string | Buffer, options?: ScriptOptions): RedisScript;
}

export const scriptingCommands: ThisType<CommandCaller> & ScriptingCommands = {
  eval(script, keys = [], args = [], options) {
    return this.call(scriptArguments('EVAL', script, keys, args), undefined, options);
  },
  evalsha(sha, keys = [], args = [], options) {
    return this.call(scriptArguments('EVALSHA', sha, keys, args), undefined, options);
  },
  evalRo(script, keys = [], args = [], options) {
    return this.call(scriptArguments('EVAL_RO', script, keys, args), undefined, options);
  },
  evalshaRo(sha, keys = [], args = [], options) {
    return this.call(scriptArguments('EVALSHA_RO', sha, keys, args), undefined, options);
  },
  scriptLoad(script, options) {
    return this.call(['SCRIPT', 'LOAD', script], asString, options);
  },
  scriptExists(shas, options) {
    return this.call(['SCRIPT', 'EXISTS', ...shas], asBooleans, options);
  },
  scriptFlush(mode, options) {
    return this.call(mode === undefined ? ['SCRIPT', 'FLUSH'] : ['SCRIPT', 'FLUSH', mode], asString, options);
  },
  fcall(name, keys = [], args = [], options) {
    return this.call(scriptArguments('FCALL', name, keys, args), undefined, options);
  },
  fcallRo(name, keys = [], args = [], options) {
    return this.call(scriptArguments('FCALL_RO', name, keys, args), undefined, options);
  },
  defineScript(lua, options) {
    return new RedisScript(this, lua, options);
  },
};
