// The temporary key of a replacing hash import (hash-import.ts): in the key's own hash slot, so
// that RENAME over the key works in Cluster mode (PROTOCOL.md §2: a key's slot is that of its hash
// tag, the part between the first `{` and the next `}`, when that part is not empty).
import type { RespArgument } from '../../resp/encoder.js';
import type { RandomSource } from '../../util/random.js';
import type { RedisArgument } from '../commands/caller.js';

const OPEN = 0x7b;
const CLOSE = 0x7d;

/**
 * `key` and a random suffix, keeping the key's slot: a key with a hash tag keeps it as it is; one
 * without a `}` becomes the hash tag of the temporary key. A key with a `}` but no hash tag has no
 * such name: its temporary key is in another slot, and in Cluster mode the server refuses the
 * import's first transaction (EXECABORT after MOVED or CROSSSLOT: hash-import.ts names both keys
 * in it), so nothing is written.
 *
 * `prefix` is a key-prefixed view's (`key` starts with it): the temporary key starts with it too
 * (`app:{app:users}:respire-import:…`, in the slot of `app:users`), so that it stays in the view's
 * key space (an ACL key pattern, a SCAN MATCH), unless the prefix holds a `{`, whose hash tag
 * would then not be the key.
 */
export function temporaryKey(
  key: RedisArgument,
  random: RandomSource,
  prefix?: string | Buffer,
): RespArgument {
  const bytes = typeof key === 'string' ? Buffer.from(key) : key;
  const suffix = Buffer.from(`:respire-import:${Math.floor(random.random() * 2 ** 48).toString(36)}`);
  if (hasHashTag(bytes) || bytes.includes(CLOSE)) return Buffer.concat([bytes, suffix]);
  const lead = prefix === undefined || Buffer.from(prefix).includes(OPEN) ? [] : [Buffer.from(prefix)];
  return Buffer.concat([...lead, Buffer.from('{'), bytes, Buffer.from('}'), suffix]);
}

/** Whether `temporaryKey(key)` is in the key's hash slot (not for a `}` without a hash tag). */
export function keepsSlot(key: RedisArgument): boolean {
  const bytes = typeof key === 'string' ? Buffer.from(key) : key;
  return hasHashTag(bytes) || !bytes.includes(CLOSE);
}

function hasHashTag(key: Buffer): boolean {
  const open = key.indexOf(OPEN);
  if (open === -1) return false;
  const close = key.indexOf(CLOSE, open + 1);
  return close > open + 1;
}
