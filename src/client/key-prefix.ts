// Key prefixing of `withKeyPrefix` views (key-prefix-view.ts), shared with what a view hands its
// prefix to (a durability batch's writes, an import's temporary key): keys are found from the
// command table's key specs.
import { RespireConfigurationError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import { commandKeys } from './command-keys.js';

/** `withKeyPrefix`'s argument, of a client or of a view: a non-empty string or Buffer. */
export function checkedPrefix(prefix: string | Buffer): string | Buffer {
  if ((typeof prefix !== 'string' && !Buffer.isBuffer(prefix)) || prefix.length === 0) {
    throw new RespireConfigurationError('withKeyPrefix', prefix, 'a non-empty string or Buffer');
  }
  return prefix;
}

/**
 * `args` with every key prefixed (the same array when the command has no key); an error when the
 * table cannot tell its keys (an unknown command, an `unknown` key spec): refused, never sent
 * unprefixed.
 */
export function prefixedArgs(
  prefix: string | Buffer,
  args: RespArgument[],
): RespArgument[] | RespireConfigurationError {
  const keys = commandKeys(args);
  if (keys === undefined) {
    return new RespireConfigurationError(
      'withKeyPrefix',
      String(args[0]),
      'commands whose key positions the command table knows',
    );
  }
  if (keys.length === 0) return args;
  const prefixed = args.slice();
  for (const index of keys) prefixed[index] = prefixKey(prefix, prefixed[index]!);
  return prefixed;
}

/** `prefix + key`: a string when both are strings, else the bytes of both. */
export function prefixKey(prefix: string | Buffer, key: RespArgument): RespArgument {
  if (typeof prefix === 'string' && typeof key === 'string') return prefix + key;
  const keyBytes =
    typeof key === 'string' ? Buffer.from(key) : ArrayBuffer.isView(key) ? key : Buffer.from(String(key));
  return Buffer.concat([typeof prefix === 'string' ? Buffer.from(prefix) : prefix, keyBytes]);
}

/** The prefix of a view of a view: the outer one's, then the inner one's. */
export function joinPrefixes(outer: string | Buffer, inner: string | Buffer): string | Buffer {
  if (typeof outer === 'string' && typeof inner === 'string') return outer + inner;
  return Buffer.concat([Buffer.from(outer), Buffer.from(inner)]);
}
