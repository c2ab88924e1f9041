// `redis.withoutCache()` (API.md "Client-side cache"): the same client, its connections and
// circuits, with reads that go to Redis whatever the cache holds. Its writes still invalidate the
// cache (they pass the client's own send path), and its replies are not stored.
import type { RespArgument } from '../../resp/encoder.js';
import { CommandFlags, type CommandOptions, type ReplyTransform } from '../../transport/command.js';
import { ClientView, type DataTarget } from '../client-view.js';
import type { CommandCaller } from '../commands/caller.js';
import { checkedPrefix, KeyPrefixView } from '../key-prefix-view.js';

/**
 * `redis.withoutCache()`: the client's commands with reads that skip the client-side cache and
 * replies that are not stored; writes still invalidate it. Shares the client's connections and
 * circuits.
 */
export class UncachedView extends ClientView {
  constructor(
    private readonly target: CommandCaller,
    data: DataTarget,
  ) {
    super(data, undefined);
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    return this.target.call(args, transform, options, flags | CommandFlags.NoCache);
  }

  /** A key-prefixed view that also reads through. */
  withKeyPrefix(prefix: string | Buffer): KeyPrefixView {
    return new KeyPrefixView(this.target, this.data, checkedPrefix(prefix), CommandFlags.NoCache);
  }
}
