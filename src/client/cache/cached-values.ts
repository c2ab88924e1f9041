// How a cached reply is measured for `maxBytes` and handed out on a hit. Scalars (strings, numbers,
// null) are immutable and handed out as they are, which keeps the hit path free of allocation;
// Buffers and aggregates are copied, so a caller that changes its reply cannot change the cache.
import type { RespValue } from '../../resp/types.js';

/**
 * Heap bytes of one entry besides its key and reply, measured on Node 20 (README "Client-side
 * cache", test/client/cache/cache-memory.test.ts: 286 B for a GET of a 16-byte key and value):
 * the entry and key holder objects, the Map slot that finds them, and the strings' headers.
 */
export const ENTRY_OVERHEAD_BYTES = 220;

/** Estimated heap bytes of a reply: string bytes plus V8's object and slot sizes. */
export function replyBytes(value: RespValue): number {
  if (typeof value === 'string') return 16 + value.length;
  if (typeof value !== 'object' || value === null) return 8;
  if (Buffer.isBuffer(value)) return 96 + value.byteLength;
  if (Array.isArray(value)) {
    let bytes = 16 + 8 * value.length;
    for (const item of value) bytes += replyBytes(item);
    return bytes;
  }
  if (value instanceof Map) {
    let bytes = 64 + 24 * value.size;
    for (const [field, item] of value) bytes += replyBytes(field) + replyBytes(item);
    return bytes;
  }
  if (value instanceof Set) {
    let bytes = 64 + 16 * value.size;
    for (const item of value) bytes += replyBytes(item);
    return bytes;
  }
  return 64;
}

/** What a hit returns: the reply itself when immutable, else a deep copy. */
export function handedOut(value: RespValue): RespValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Buffer.isBuffer(value)) return Buffer.from(value);
  if (Array.isArray(value)) return value.map(handedOut);
  if (value instanceof Map) {
    const copy = new Map<RespValue, RespValue>();
    for (const [field, item] of value) copy.set(handedOut(field), handedOut(item));
    return copy;
  }
  if (value instanceof Set) {
    const copy = new Set<RespValue>();
    for (const item of value) copy.add(handedOut(item));
    return copy;
  }
  return value;
}

/** A hit's answer: the caller's conversion of a copy of the reply (fire-and-forget: nothing). */
export function answerFromCache<T>(
  value: RespValue,
  transform: ((reply: RespValue) => T) | undefined,
  fireAndForget: boolean,
  errorSink: ((error: unknown) => void) | undefined,
): Promise<T> {
  if (fireAndForget) return Promise.resolve(undefined as T);
  if (transform === undefined) return Promise.resolve(handedOut(value) as T);
  try {
    return Promise.resolve(transform(handedOut(value)));
  } catch (error) {
    errorSink?.(error);
    return Promise.reject(error);
  }
}
