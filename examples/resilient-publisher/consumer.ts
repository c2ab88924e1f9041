// The consumer side of at-least-once delivery: an event may reach the stream more than once (a
// write that timed out after it was sent is also spooled and replayed), so a consumer keeps the
// first entry of each idempotency key and skips the rest. This reads a whole stream that way; a
// long-running consumer does the same with a bounded seen-set or SET NX (README "Consuming").
import type { RespireClient } from '../../src/index.js';

export interface StreamEvent {
  /** The stream entry ID of the event's first occurrence. */
  readonly id: string;
  readonly key: string;
  readonly data: string;
}

export interface UniqueEvents {
  /** First occurrences, in stream order. */
  readonly events: StreamEvent[];
  /** Entries skipped because their key was seen before. */
  readonly duplicates: number;
  /** Entries without a `key` field (not written by the publisher). */
  readonly foreign: number;
}

/** Reads every entry of `stream`, `pageSize` at a time, keeping each key's first occurrence. */
export async function readUniqueEvents(
  redis: Pick<RespireClient, 'xrange'>,
  stream: string,
  pageSize = 1000,
): Promise<UniqueEvents> {
  const seen = new Set<string>();
  const events: StreamEvent[] = [];
  let duplicates = 0;
  let foreign = 0;
  let start = '-';
  for (;;) {
    const page = await redis.xrange(stream, start, '+', { COUNT: pageSize });
    for (const entry of page) {
      const key = entry.fields.key;
      if (key === undefined) foreign++;
      else if (seen.has(key)) duplicates++;
      else {
        seen.add(key);
        events.push({ id: entry.id, key, data: entry.fields.data ?? '' });
      }
    }
    if (page.length < pageSize) return { events, duplicates, foreign };
    start = `(${page[page.length - 1]!.id}`;
  }
}
