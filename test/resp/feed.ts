// Feeds a byte stream to a RespDecoder in chosen chunkings (whole, one byte per write, split at an
// offset, cut at given points) and records what it delivered, in one ordered event log.
import { RespireProtocolError, RespireServerError } from '../../src/errors.js';
import { RespDecoder } from '../../src/resp/decoder.js';
import type { RespDecoderOptions, RespValue } from '../../src/resp/types.js';

/** One callback the decoder made: a reply, a push frame or an attribute map. */
export interface DecodedEvent {
  readonly kind: 'reply' | 'push' | 'attribute';
  readonly value: RespValue;
}

/** Decoder options without the callbacks, which the recorder supplies. */
export type DecoderSettings = Omit<RespDecoderOptions, 'onReply' | 'onPush' | 'onAttribute'> & {
  /** Install an `onAttribute` hook (default `true`); without it attributes must be dropped. */
  readonly attributeHook?: boolean;
};

export interface FeedOutcome {
  readonly events: DecodedEvent[];
  /** What the failing `write` threw, or `undefined` when every chunk was accepted. */
  readonly error: unknown;
  /** Index of the chunk whose `write` threw, or -1. */
  readonly failedChunk: number;
  /** The decoder, for follow-up writes after the outcome (sticky errors, reset). */
  readonly decoder: RespDecoder;
}

/** A decoder whose callbacks append to `events`. */
export function recordingDecoder(settings: DecoderSettings = {}): {
  decoder: RespDecoder;
  events: DecodedEvent[];
} {
  const events: DecodedEvent[] = [];
  const { attributeHook = true, ...limits } = settings;
  const options: RespDecoderOptions = {
    ...limits,
    onReply: (value) => events.push({ kind: 'reply', value }),
    onPush: (value) => events.push({ kind: 'push', value }),
  };
  if (attributeHook) options.onAttribute = (value) => events.push({ kind: 'attribute', value });
  return { decoder: new RespDecoder(options), events };
}

/** Writes `chunks` in order to a fresh recording decoder, stopping at the first write that throws. */
export function feed(chunks: readonly Uint8Array[], settings: DecoderSettings = {}): FeedOutcome {
  const { decoder, events } = recordingDecoder(settings);
  for (let index = 0; index < chunks.length; index++) {
    try {
      decoder.write(chunks[index]!);
    } catch (error) {
      return { events, error, failedChunk: index, decoder };
    }
  }
  return { events, error: undefined, failedChunk: -1, decoder };
}

// Chunkings. Views share the input's memory (like socket chunks); none of them copies more than once.

/** The whole stream in one Buffer. */
export function whole(bytes: Uint8Array): Uint8Array[] {
  return [Buffer.from(bytes)];
}

/** The whole stream as a plain Uint8Array view with unrelated bytes before and after it. */
export function paddedView(bytes: Uint8Array): Uint8Array[] {
  const padding = 7;
  const backing = new Uint8Array(bytes.length + 2 * padding).fill(0x2a);
  backing.set(bytes, padding);
  return [backing.subarray(padding, padding + bytes.length)];
}

/** One byte per write. */
export function bytewise(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let index = 0; index < bytes.length; index++) chunks.push(bytes.subarray(index, index + 1));
  return chunks;
}

/** Two writes, the first holding `offset` bytes (either may be empty). */
export function splitAt(bytes: Uint8Array, offset: number): Uint8Array[] {
  const buffer = Buffer.from(bytes);
  return [buffer.subarray(0, offset), buffer.subarray(offset)];
}

/** Every two-chunk split, offsets 0 through `bytes.length`. */
export function splitsEverywhere(bytes: Uint8Array): Uint8Array[][] {
  const splits: Uint8Array[][] = [];
  for (let offset = 0; offset <= bytes.length; offset++) splits.push(splitAt(bytes, offset));
  return splits;
}

/** Consecutive chunks of `size` bytes (the last may be shorter). */
export function fixedChunks(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

/**
 * Cuts the stream at the given points (taken modulo `length + 1`; repeats give empty writes, which a
 * decoder must accept). Random chunkings come from a property-test generator choosing `cuts`.
 */
export function cutAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = cuts.map((cut) => cut % (bytes.length + 1)).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

/**
 * A canonical, comparable description of a decoded value: keeps apart what `toEqual` would blur or
 * could not reach (string vs Buffer vs plain Uint8Array, number vs bigint, -0 vs 0, error classes
 * and codes, Set and Map insertion order).
 */
export function describeValue(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return { number: Object.is(value, -0) ? '-0' : String(value) };
  if (typeof value === 'bigint') return { bigint: String(value) };
  if (Buffer.isBuffer(value)) return { buffer: value.toString('hex') };
  if (value instanceof Uint8Array) return { plainUint8Array: Buffer.from(value).toString('hex') };
  if (value instanceof RespireServerError) return { serverError: value.message, code: value.code };
  if (value instanceof Error) return { unexpectedError: value.name, message: value.message };
  if (Array.isArray(value)) return value.map(describeValue);
  if (value instanceof Set) return { set: [...value].map(describeValue) };
  if (value instanceof Map) {
    return { map: [...value].map(([key, entry]) => [describeValue(key), describeValue(entry)]) };
  }
  return { unexpected: Object.prototype.toString.call(value), text: String(value) };
}

export function describeEvents(events: readonly DecodedEvent[]): unknown[] {
  return events.map((event) => ({ [event.kind]: describeValue(event.value) }));
}

/** Whether `value` is only made of the shapes API.md "Replies" allows (no undefined, no other objects). */
export function isRespValue(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item === 'string' || typeof item === 'boolean') continue;
    if (typeof item === 'number' || typeof item === 'bigint') continue;
    if (Buffer.isBuffer(item) || item instanceof RespireServerError) continue;
    if (Array.isArray(item) || item instanceof Set) pending.push(...item);
    else if (item instanceof Map) for (const [key, entry] of item) pending.push(key, entry);
    else return false;
  }
  return true;
}

/** Narrows a caught value to the decoder's protocol error, failing with a readable message. */
export function asProtocolError(error: unknown): RespireProtocolError {
  if (error instanceof RespireProtocolError) return error;
  throw new Error(`expected a RespireProtocolError, got ${String(error)}`, { cause: error });
}
