// Reply conversions shared by the typed helpers. Each throws a TypeError when the reply does not
// have the documented shape, which rejects the command (the connection is unaffected).
import type { RespValue } from '../../resp/types.js';

export function asString(reply: RespValue): string {
  if (typeof reply === 'string') return reply;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  throw unexpected(reply, 'a string');
}

export function asNullableString(reply: RespValue): string | null {
  return reply === null ? null : asString(reply);
}

export function unexpected(reply: RespValue, expected: string): TypeError {
  const shape = reply === null ? 'null' : Array.isArray(reply) ? 'an array' : typeof reply;
  return new TypeError(`unexpected reply: ${shape}, expected ${expected}`);
}
