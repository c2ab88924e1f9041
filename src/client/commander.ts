// The base of everything that sends commands (the client, its views, batches, transactions):
// `send` for any command, and the typed helpers of `src/client/commands/`, which all funnel into
// one `call`.
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import type { CommandOptions, ReplyTransform } from '../transport/command.js';
import type { CommandCaller } from './commands/caller.js';
import { commandFamilies, type RedisCommands } from './commands/index.js';

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged interface declares the typed helpers that the loop at the end of this file installs on the prototype.
export abstract class Commander implements CommandCaller {
  /**
   * Sends one command. `transform` turns the raw reply into the helper's result; `flags` are
   * CommandFlags the helper knows statically.
   */
  abstract call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags?: number,
  ): Promise<T>;

  /** Sends any command and resolves with its raw reply (API.md "Replies"). */
  send(args: RespArgument[], options?: CommandOptions): Promise<RespValue> {
    return this.call<RespValue>(args, undefined, options);
  }
}

// The typed helpers live on the prototype; the interface tells TypeScript they are there.
export interface Commander extends RedisCommands {}
for (const family of commandFamilies) Object.assign(Commander.prototype, family);
