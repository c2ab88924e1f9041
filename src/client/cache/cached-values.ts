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
  return copied(value, copiedBuffer);
}

/**
 * What the cache keeps of a miss's reply: a deep copy, as a hit's, so that the reply the caller
 * received (and may change) is not the entry. Buffers get bytes of their own: a decoded Buffer is
 * a view into its connection's read slab (transport/slab-reader.ts), which a kept view would pin,
 * 80 kB for a 4-byte value that `maxBytes` counts as ~100 B.
 */
export function storedCopy(value: RespValue): RespValue {
  return copied(value, ownedBuffer);
}

function copied(value: RespValue, copyBuffer: (buffer: Buffer) => Buffer): RespValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Buffer.isBuffer(value)) return copyBuffer(value);
  if (Array.isArray(value)) return value.map((item) => copied(item, copyBuffer));
  if (value instanceof Map) {
    const copy = new Map<RespValue, RespValue>();
    for (const [field, item] of value) copy.set(copied(field, copyBuffer), copied(item, copyBuffer));
    return copy;
  }
  if (value instanceof Set) {
    const copy = new Set<RespValue>();
    for (const item of value) copy.add(copied(item, copyBuffer));
    return copy;
  }
  return value;
}

function copiedBuffer(buffer: Buffer): Buffer {
  return Buffer.from(buffer);
}

/** Outside Node's shared 8 kB pool too, which one kept small Buffer would pin as well. */
function ownedBuffer(buffer: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(buffer.byteLength);
  buffer.copy(copy);
  return copy;
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
