// The entries of a hash import (hash-import.ts) read in chunks of `chunkFields` fields, one chunk
// ahead of the one being sent, so that the import knows which transaction is its last (the one
// that RENAMEs). Chunks read are kept until `take()`: after a circuit rejection the import resumes
// with the very fieldsets it had prepared (seed 000 "Hash imports").
import { RespireError } from '../../errors.js';
import type { RespArgument } from '../../resp/encoder.js';
import type { RedisArgument } from '../commands/caller.js';

/** One field of the hash and its value. */
export type HashEntry = readonly [field: RedisArgument, value: RedisArgument | number];
/** What `importHash` reads the hash from: `[field, value]` pairs, sync or async. */
export type EntrySource = Iterable<HashEntry> | AsyncIterable<HashEntry>;

/** `undefined` while not read yet; `null` when the entries ended before it. */
type Slot = RespArgument[] | null | undefined;

export class FieldChunks {
  private readonly iterator: Iterator<HashEntry> | AsyncIterator<HashEntry>;
  private current: Slot;
  private following: Slot;
  private read = 0;
  private ended = false;

  constructor(
    entries: EntrySource,
    private readonly chunkFields: number,
  ) {
    if (entries === null || typeof entries !== 'object') {
      throw new TypeError('importHash: entries must be an iterable or async iterable of [field, value]');
    }
    const asyncIterable = (entries as AsyncIterable<HashEntry>)[Symbol.asyncIterator];
    const iterable = (entries as Iterable<HashEntry>)[Symbol.iterator];
    if (typeof asyncIterable === 'function') this.iterator = asyncIterable.call(entries);
    else if (typeof iterable === 'function') this.iterator = iterable.call(entries);
    else throw new TypeError('importHash: entries must be an iterable or async iterable of [field, value]');
  }

  /** The chunk to send next (HSET's field and value arguments), or undefined when none is left. */
  async peek(): Promise<RespArgument[] | undefined> {
    if (this.current === undefined) this.current = await this.readChunk();
    return this.current ?? undefined;
  }

  /** Whether the chunk `peek` gave is the last one (reads the following chunk to know). */
  async isLastPeeked(): Promise<boolean> {
    if (this.current === null) return true;
    if (this.following === undefined) this.following = await this.readChunk();
    return this.following === null;
  }

  /** The peeked chunk was sent: the following one comes next. */
  take(): void {
    this.current = this.following;
    this.following = undefined;
  }

  /** The import ended: a generator behind the entries runs its `finally`. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.current = null;
    this.following = null;
    Promise.resolve(this.iterator.return?.()).catch(ignore);
  }

  private async readChunk(): Promise<RespArgument[] | null> {
    if (this.ended) return null;
    const chunk: RespArgument[] = [];
    while (chunk.length < this.chunkFields * 2) {
      let next: IteratorResult<HashEntry>;
      try {
        next = await this.iterator.next();
      } catch (error) {
        this.ended = true;
        throw new RespireError(`importHash: reading the entries failed after ${this.read} fields`, {
          cause: error,
        });
      }
      if (next.done === true) {
        this.ended = true;
        break;
      }
      chunk.push(...checkedEntry(next.value, this.read));
      this.read++;
    }
    return chunk.length === 0 ? null : chunk;
  }
}

function checkedEntry(entry: unknown, index: number): [RespArgument, RespArgument] {
  if (Array.isArray(entry) && entry.length === 2) {
    const [field, value] = entry as unknown[];
    if (isArgument(field)) {
      if (isArgument(value)) return [field, value];
      if (typeof value === 'number' && Number.isFinite(value)) return [field, String(value)];
    }
  }
  throw new TypeError(
    `importHash: entry ${index} is not a [field, value] pair of strings or Buffers (a value may be a finite number)`,
  );
}

function isArgument(value: unknown): value is string | Buffer {
  return typeof value === 'string' || Buffer.isBuffer(value);
}

function ignore(): void {}
