// `redis.withKeyPrefix('app:')` (API.md "Batches, transactions, views"): the same client, its
// connections and circuits, with every key argument prefixed. Keys are found from the command
// table's key specs, so any command works, typed helper or `send`; a command whose keys the table
// cannot tell (an unknown command, an `unknown` key spec) is refused rather than sent unprefixed
// (key-prefix.ts). Replies are not rewritten: KEYS and SCAN return full key names, prefix included.
// The data methods (getStream, setFromStream, importHash, durable) prefix their keys too
// (client-view.ts).
import type { RespArgument } from '../resp/encoder.js';
import { CommandFlags, type CommandOptions, type ReplyTransform } from '../transport/command.js';
import { ClientView, type DataTarget } from './client-view.js';
import type { CommandCaller } from './commands/caller.js';
import { checkedPrefix, joinPrefixes, prefixedArgs } from './key-prefix.js';

export { checkedPrefix } from './key-prefix.js';

/**
 * `redis.withKeyPrefix(prefix)`: the same commands with every key prefixed; shares the client's
 * connections and circuits.
 */
export class KeyPrefixView extends ClientView {
  declare readonly prefix: string | Buffer;

  constructor(
    private readonly target: CommandCaller,
    data: DataTarget,
    prefix: string | Buffer,
    /** CommandFlags added to every call: NoCache for a view that reads through the cache. */
    private readonly flags = 0,
  ) {
    super(data, prefix);
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    const prefixed = prefixedArgs(this.prefix, args);
    if (prefixed instanceof Error) return Promise.reject(prefixed);
    return this.target.call(prefixed, transform, options, flags | this.flags);
  }

  /** A view of this view: the prefixes add up. */
  withKeyPrefix(prefix: string | Buffer): KeyPrefixView {
    return new KeyPrefixView(
      this.target,
      this.data,
      joinPrefixes(this.prefix, checkedPrefix(prefix)),
      this.flags,
    );
  }

  /** This view reading through the client-side cache (as `redis.withoutCache()`); writes still invalidate it. */
  withoutCache(): KeyPrefixView {
    return new KeyPrefixView(this.target, this.data, this.prefix, this.flags | CommandFlags.NoCache);
  }
}
