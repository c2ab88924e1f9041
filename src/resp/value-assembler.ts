// Builds aggregates from decoded values on an explicit stack (nesting never recurses) and hands
// finished values to the decoder's callbacks: top-level replies to onReply, pushes to onPush,
// attributes to onAttribute and never into the value they annotate (PROTOCOL.md §1.3).
import { ARRAY, BULK_STRING, MAP, PUSH, SET } from './frame-types.js';
import { utf8Text } from './scalars.js';
import type { RespDecoderOptions, RespValue } from './types.js';

/** `remaining` of a frame whose end is a `.` (or `;0`) rather than a count. */
export const UNTIL_END = -1;

const EMPTY: RespValue[] = [];

export class ValueAssembler {
  /** Open frames: aggregates, plus a streamed string while its chunks arrive. */
  depth = 0;
  /** Whether the innermost open frame is a streamed string (`$?`), which only takes `;` chunks. */
  inStreamedString = false;
  private readonly types: number[] = [];
  /** Elements each frame still expects, or UNTIL_END. */
  private readonly remaining: number[] = [];
  private readonly items: (RespValue[] | Buffer[])[] = [];

  constructor(
    private readonly handlers: RespDecoderOptions,
    private readonly returnBuffers: boolean,
  ) {}

  reset(): void {
    this.depth = 0;
    this.inStreamedString = false;
    this.types.length = 0;
    this.remaining.length = 0;
    this.items.length = 0;
  }

  /** Opens an aggregate expecting `remaining` elements (twice the pairs for maps), or UNTIL_END. */
  open(type: number, remaining: number): void {
    const depth = this.depth;
    this.types[depth] = type;
    this.remaining[depth] = remaining;
    this.items[depth] = [];
    this.depth = depth + 1;
  }

  openStreamedString(): void {
    this.open(BULK_STRING, UNTIL_END);
    this.inStreamedString = true;
  }

  /** Delivers a complete value: to its parent aggregate, or as a top-level reply. */
  add(value: RespValue): void {
    for (;;) {
      const depth = this.depth;
      if (depth === 0) {
        this.handlers.onReply(value);
        return;
      }
      const top = depth - 1;
      (this.items[top] as RespValue[]).push(value);
      const remaining = this.remaining[top]! - 1;
      if (remaining !== 0) {
        if (remaining > 0) this.remaining[top] = remaining;
        return;
      }
      const closed = this.close();
      if (closed === undefined) return;
      value = closed;
    }
  }

  /** Push frames go to onPush; attributes to onAttribute and never into the enclosing value. */
  deliverFrame(type: number, items: RespValue[]): void {
    if (type === PUSH) this.handlers.onPush(items);
    else this.handlers.onAttribute?.(pairsToMap(items));
  }

  /** Why a `.` cannot end the innermost frame now, or undefined when it can. */
  streamEndProblem(): string | undefined {
    const top = this.depth - 1;
    if (top < 0 || this.remaining[top] !== UNTIL_END || this.inStreamedString) {
      return '`.` outside a streamed aggregate';
    }
    if (this.types[top] === MAP && (this.items[top]!.length & 1) === 1) {
      return 'streamed map with an odd number of elements';
    }
    return undefined;
  }

  /** Pops the innermost aggregate; returns its value, or undefined for a push or attribute. */
  close(): RespValue | undefined {
    const top = --this.depth;
    const type = this.types[top]!;
    const items = this.items[top] as RespValue[];
    this.items[top] = EMPTY;
    if (type === ARRAY) return items;
    if (type === SET) return new Set(items);
    if (type === MAP) return pairsToMap(items);
    this.deliverFrame(type, items);
    return undefined;
  }

  /** A `;` chunk of the open streamed string. */
  addChunk(chunk: Buffer): void {
    (this.items[this.depth - 1] as Buffer[]).push(chunk);
  }

  /** Ends the open streamed string (`;0`) and returns its value. */
  closeStreamedString(): RespValue {
    const top = --this.depth;
    const chunks = this.items[top] as Buffer[];
    this.items[top] = EMPTY;
    this.inStreamedString = false;
    const joined = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    return this.returnBuffers ? joined : utf8Text(joined, 0, joined.length);
  }
}

function pairsToMap(items: RespValue[]): Map<RespValue, RespValue> {
  const map = new Map<RespValue, RespValue>();
  for (let i = 0; i < items.length; i += 2) map.set(items[i]!, items[i + 1]!);
  return map;
}
