// `redis.withKeyPrefix('app:')` (API.md "Batches, transactions, views"): the same client, its
// connections and circuits, with every key argument prefixed. Keys are found from the command
// table's key specs, so any command works, typed helper or `send`; a command whose keys the table
// cannot tell (an unknown command, an `unknown` key spec) is refused rather than sent unprefixed.
// Replies are not rewritten: KEYS and SCAN return full key names, prefix included.
import { RespireConfigurationError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import type { CommandOptions, ReplyTransform } from '../transport/command.js';
import { commandKeys } from './command-keys.js';
import { Commander } from './commander.js';
import type { CommandCaller } from './commands/caller.js';

/**
 * `redis.withKeyPrefix(prefix)`: the same commands with every key prefixed; shares the client's
 * connections and circuits.
 */
export class KeyPrefixView extends Commander {
  constructor(
    private readonly target: CommandCaller,
    /** The prefix, as bytes when given as a Buffer. */
    readonly prefix: string | Buffer,
  ) {
    super();
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags?: number,
  ): Promise<T> {
    const keys = commandKeys(args);
    if (keys === undefined) {
      return Promise.reject(
        new RespireConfigurationError(
          'withKeyPrefix',
          String(args[0]),
          'commands whose key positions the command table knows',
        ),
      );
    }
    if (keys.length === 0) return this.target.call(args, transform, options, flags);
    const prefixed = args.slice();
    for (const index of keys) prefixed[index] = prefixKey(this.prefix, prefixed[index]!);
    return this.target.call(prefixed, transform, options, flags);
  }

  /** A view of this view: the prefixes add up. */
  withKeyPrefix(prefix: string | Buffer): KeyPrefixView {
    return new KeyPrefixView(this.target, joinPrefixes(this.prefix, checkedPrefix(prefix)));
  }
}

/** `withKeyPrefix`'s argument, of a client or of a view: a non-empty string or Buffer. */
export function checkedPrefix(prefix: string | Buffer): string | Buffer {
  if ((typeof prefix !== 'string' && !Buffer.isBuffer(prefix)) || prefix.length === 0) {
    throw new RespireConfigurationError('withKeyPrefix', prefix, 'a non-empty string or Buffer');
  }
  return prefix;
}

function prefixKey(prefix: string | Buffer, key: RespArgument): RespArgument {
  if (typeof prefix === 'string' && typeof key === 'string') return prefix + key;
  const keyBytes =
    typeof key === 'string' ? Buffer.from(key) : ArrayBuffer.isView(key) ? key : Buffer.from(String(key));
  return Buffer.concat([typeof prefix === 'string' ? Buffer.from(prefix) : prefix, keyBytes]);
}

function joinPrefixes(outer: string | Buffer, inner: string | Buffer): string | Buffer {
  if (typeof outer === 'string' && typeof inner === 'string') return outer + inner;
  return Buffer.concat([Buffer.from(outer), Buffer.from(inner)]);
}
