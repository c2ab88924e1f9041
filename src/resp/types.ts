// The JavaScript shapes of RESP values (API.md "Replies") and the decoder's options.
import type { RespireServerError } from '../errors.js';

/**
 * A decoded RESP2/RESP3 value. Strings are UTF-8 `string`s, or `Buffer`s with `returnBuffers`;
 * integers are `number`s, `bigint` beyond the safe-integer range; big numbers are `bigint`;
 * error frames are `RespireServerError` instances; arrays, sets and maps are `Array`, `Set`, `Map`.
 */
export type RespValue =
  | string
  | Buffer
  | number
  | bigint
  | boolean
  | null
  | RespireServerError
  | RespValue[]
  | Set<RespValue>
  | Map<RespValue, RespValue>;

/** The callbacks and settings of a `RespDecoder`. */
export interface RespDecoderOptions {
  /** Each complete top-level reply, in order. Error frames arrive as `RespireServerError`. */
  onReply(value: RespValue): void;
  /** Each push frame (`>`), as an array of its elements. A push is never passed to `onReply`. */
  onPush(frame: RespValue[]): void;
  /** An attribute map, called just before the value (reply, push or element) it annotates. */
  onAttribute?(attributes: Map<RespValue, RespValue>): void;
  /** Simple, bulk and verbatim strings as `Buffer` instead of `string`. Default `false`. */
  returnBuffers?: boolean;
  /** Deepest aggregate nesting accepted. Default 1,000,000. */
  maxNestingDepth?: number;
  /** Longest bulk/verbatim/blob-error payload and longest line, in bytes. Default 512 MiB. */
  maxBulkLength?: number;
  /** Most elements (pairs for maps and attributes) in one aggregate. Default 2^32 - 1. */
  maxAggregateLength?: number;
}
