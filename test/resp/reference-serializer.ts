// Test-side RESP3 writer: a model of frames (PROTOCOL.md §1.1), their wire bytes, and the values and
// callback events a conforming decoder delivers for them (API.md "Replies"). Shares no code with src/resp.
import { RespireServerError } from '../../src/errors.js';
import type { RespValue } from '../../src/resp/types.js';
import type { DecodedEvent } from './feed.js';

/** Raw bytes, which may hold CR, LF or invalid UTF-8 unless the frame kind forbids CR and LF. */
export type Bytes = Uint8Array;

export type Frame =
  | { readonly kind: 'simple'; readonly text: Bytes } // no CR or LF inside
  | { readonly kind: 'bulk'; readonly bytes: Bytes }
  | { readonly kind: 'verbatim'; readonly format: string; readonly bytes: Bytes } // format: 3 ASCII bytes
  | { readonly kind: 'streamedString'; readonly chunks: readonly Bytes[] } // every chunk non-empty
  | { readonly kind: 'simpleError'; readonly text: Bytes } // no CR or LF inside
  | { readonly kind: 'blobError'; readonly bytes: Bytes }
  | { readonly kind: 'integer'; readonly value: bigint; readonly plusSign: boolean }
  | { readonly kind: 'double'; readonly text: string } // one of the spellings parseDoubleText reads
  | { readonly kind: 'bigNumber'; readonly value: bigint; readonly plusSign: boolean }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null'; readonly form: '_' | '$-1' | '*-1' }
  | { readonly kind: 'array' | 'set' | 'push'; readonly items: readonly Frame[]; readonly streamed: boolean }
  | { readonly kind: 'map'; readonly entries: readonly MapEntry[]; readonly streamed: boolean }
  | { readonly kind: 'attributed'; readonly attributes: readonly MapEntry[]; readonly value: Frame };

export type MapEntry = readonly [Frame, Frame];

const CRLF = '\r\n';

/** The wire bytes of `frames`, one after another. */
export function serialize(frames: readonly Frame[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const frame of frames) writeFrame(frame, parts);
  return Buffer.concat(parts);
}

function writeFrame(frame: Frame, parts: Uint8Array[]): void {
  const line = (text: string) => parts.push(Buffer.from(text, 'latin1'));
  const payload = (type: string, bytes: Bytes) => {
    line(`${type}${bytes.length}${CRLF}`);
    parts.push(bytes);
    line(CRLF);
  };
  const pairs = (header: string, entries: readonly MapEntry[]) => {
    line(header);
    for (const [key, value] of entries) {
      writeFrame(key, parts);
      writeFrame(value, parts);
    }
  };
  switch (frame.kind) {
    case 'simple':
    case 'simpleError':
      line(frame.kind === 'simple' ? '+' : '-');
      parts.push(frame.text);
      line(CRLF);
      break;
    case 'bulk':
      payload('$', frame.bytes);
      break;
    case 'blobError':
      payload('!', frame.bytes);
      break;
    case 'verbatim':
      payload('=', Buffer.concat([Buffer.from(`${frame.format}:`, 'latin1'), frame.bytes]));
      break;
    case 'streamedString':
      line(`$?${CRLF}`);
      for (const chunk of frame.chunks) payload(';', chunk);
      line(`;0${CRLF}`);
      break;
    case 'integer':
    case 'bigNumber': {
      const sign = frame.plusSign && frame.value >= 0n ? '+' : '';
      line(`${frame.kind === 'integer' ? ':' : '('}${sign}${frame.value}${CRLF}`);
      break;
    }
    case 'double':
      line(`,${frame.text}${CRLF}`);
      break;
    case 'boolean':
      line(`#${frame.value ? 't' : 'f'}${CRLF}`);
      break;
    case 'null':
      line(`${frame.form}${CRLF}`);
      break;
    case 'array':
    case 'set':
    case 'push': {
      const type = frame.kind === 'array' ? '*' : frame.kind === 'set' ? '~' : '>';
      line(`${type}${frame.streamed ? '?' : frame.items.length}${CRLF}`);
      for (const item of frame.items) writeFrame(item, parts);
      if (frame.streamed) line(`.${CRLF}`);
      break;
    }
    case 'map':
      pairs(`%${frame.streamed ? '?' : frame.entries.length}${CRLF}`, frame.entries);
      if (frame.streamed) line(`.${CRLF}`);
      break;
    case 'attributed':
      pairs(`|${frame.attributes.length}${CRLF}`, frame.attributes);
      writeFrame(frame.value, parts);
      break;
  }
}

/**
 * The double a spelling stands for: `inf` and `nan` in any case with an optional sign, `nan(…)`
 * payloads, everything else JavaScript's own correctly rounded decimal reading.
 */
function parseDoubleText(text: string): number {
  const unsigned = text.replace(/^[+-]/, '').toLowerCase();
  if (unsigned === 'inf') return text.startsWith('-') ? -Infinity : Infinity;
  if (unsigned.startsWith('nan')) return Number.NaN;
  return Number(text);
}

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);

/** The value the decoder delivers for `frame` (a Set dedupes, a Map keeps the last value of a key). */
function expectedValue(frame: Frame, returnBuffers: boolean): RespValue {
  const text = (bytes: Bytes) => (returnBuffers ? Buffer.from(bytes) : Buffer.from(bytes).toString('utf8'));
  const nested = (item: Frame) => expectedValue(item, returnBuffers);
  switch (frame.kind) {
    case 'simple':
      return text(frame.text);
    case 'bulk':
    case 'verbatim':
      return text(frame.bytes);
    case 'streamedString':
      return text(Buffer.concat(frame.chunks));
    case 'simpleError':
      return new RespireServerError(Buffer.from(frame.text).toString('utf8'));
    case 'blobError':
      return new RespireServerError(Buffer.from(frame.bytes).toString('utf8'));
    case 'integer':
      return frame.value >= -maxSafe && frame.value <= maxSafe ? Number(frame.value) : frame.value;
    case 'double':
      return parseDoubleText(frame.text);
    case 'bigNumber':
      return frame.value;
    case 'boolean':
      return frame.value;
    case 'null':
      return null;
    case 'array':
    case 'push':
      return frame.items.map(nested);
    case 'set':
      return new Set(frame.items.map(nested));
    case 'map':
      return new Map(frame.entries.map(([key, value]) => [nested(key), nested(value)]));
    case 'attributed':
      return nested(frame.value);
  }
}

export interface ExpectOptions {
  readonly returnBuffers: boolean;
  /** Whether an `onAttribute` hook is installed; without one no attribute events happen. */
  readonly attributeHook: boolean;
}

/**
 * The callbacks a stream of top-level frames causes, in order: each attribute map as soon as it is
 * complete (so those inside a reply come before the reply), then the reply or push itself.
 */
export function expectedEvents(frames: readonly Frame[], options: ExpectOptions): DecodedEvent[] {
  const events: DecodedEvent[] = [];
  for (const frame of frames) {
    collectAttributes(frame, options, events);
    const kind = unwrap(frame).kind === 'push' ? 'push' : 'reply';
    events.push({ kind, value: expectedValue(frame, options.returnBuffers) });
  }
  return events;
}

function collectAttributes(frame: Frame, options: ExpectOptions, events: DecodedEvent[]): void {
  const visitPairs = (entries: readonly MapEntry[]) => {
    for (const [key, value] of entries) {
      collectAttributes(key, options, events);
      collectAttributes(value, options, events);
    }
  };
  switch (frame.kind) {
    case 'attributed':
      visitPairs(frame.attributes);
      if (options.attributeHook) {
        const entries = frame.attributes.map(([key, value]): [RespValue, RespValue] => [
          expectedValue(key, options.returnBuffers),
          expectedValue(value, options.returnBuffers),
        ]);
        events.push({ kind: 'attribute', value: new Map(entries) });
      }
      collectAttributes(frame.value, options, events);
      break;
    case 'array':
    case 'set':
    case 'push':
      for (const item of frame.items) collectAttributes(item, options, events);
      break;
    case 'map':
      visitPairs(frame.entries);
      break;
    default:
      break;
  }
}

/** The frame under any attribute prefixes. */
function unwrap(frame: Frame): Frame {
  while (frame.kind === 'attributed') frame = frame.value;
  return frame;
}
