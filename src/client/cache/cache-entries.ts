// The records of the client-side cache: one holder per key (its entries, the reads of it in flight,
// when it was last invalidated) and one entry per cached reply, linked in least-recently-used order.
// Plain objects with fixed shapes, so the hit path reads fields and allocates nothing.
import type { RespValue } from '../../resp/types.js';

/** What covers an entry: the tracking connection of the node its reply came from (tracker.ts). */
export interface Coverage {
  /** Whether invalidations of every key are being heard right now. */
  readonly ready: boolean;
  /** Changes each time coverage starts or ends: a read stores only within one generation. */
  readonly generation: number;
}

export class CacheEntry {
  /** Neighbours in the least-recently-used list (`prev` older, `next` newer). */
  prev: CacheEntry | undefined = undefined;
  next: CacheEntry | undefined = undefined;

  constructor(
    readonly holder: KeyHolder,
    /** The command and its arguments other than the key. */
    readonly signature: string,
    public value: RespValue,
    public bytes: number,
    /** Clock ms after which the entry is not served; Infinity without `ttl`. */
    public expiresAt: number,
    public coverage: Coverage,
  ) {}
}

export class KeyHolder {
  /** The first entry of the key (most keys have one: GET); the rest by signature. */
  first: CacheEntry | undefined = undefined;
  more: Map<string, CacheEntry> | undefined = undefined;
  /** Cache misses of this key whose reply has not arrived (PROTOCOL.md §4 "in-flight placeholder"). */
  pending = 0;
  /** The cache's invalidation sequence number when this key was last invalidated. */
  invalidatedAt = 0;

  constructor(readonly key: string) {}

  get empty(): boolean {
    return this.first === undefined && this.pending === 0;
  }

  find(signature: string): CacheEntry | undefined {
    const first = this.first;
    if (first !== undefined && first.signature === signature) return first;
    return this.more?.get(signature);
  }

  add(entry: CacheEntry): void {
    if (this.first === undefined) this.first = entry;
    else (this.more ??= new Map()).set(entry.signature, entry);
  }

  remove(entry: CacheEntry): void {
    if (this.first === entry) {
      this.first = undefined;
      const more = this.more;
      if (more !== undefined) {
        for (const [signature, next] of more) {
          this.first = next;
          more.delete(signature);
          break;
        }
        if (more.size === 0) this.more = undefined;
      }
      return;
    }
    this.more?.delete(entry.signature);
  }

  /** Every entry of the key. */
  entries(): CacheEntry[] {
    if (this.first === undefined) return [];
    return this.more === undefined ? [this.first] : [this.first, ...this.more.values()];
  }
}

/** Entries from least to most recently used, with O(1) touch and unlink. */
export class RecencyList {
  private head: CacheEntry | undefined = undefined;
  private tail: CacheEntry | undefined = undefined;

  get oldest(): CacheEntry | undefined {
    return this.head;
  }

  append(entry: CacheEntry): void {
    entry.prev = this.tail;
    entry.next = undefined;
    if (this.tail === undefined) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
  }

  unlink(entry: CacheEntry): void {
    if (entry.prev === undefined) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
  }

  /** Marks `entry` most recently used. */
  touch(entry: CacheEntry): void {
    if (this.tail === entry) return;
    this.unlink(entry);
    this.append(entry);
  }

  clear(): void {
    this.head = undefined;
    this.tail = undefined;
  }
}
