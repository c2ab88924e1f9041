// Shared by the resilient publisher's integration tests: waits that re-check a condition whenever
// something reports progress (no polling, no sleeps), and the checks every run must pass on what
// reached the stream.
import { expect } from 'vitest';
import type { UniqueEvents } from '../../examples/resilient-publisher/consumer.js';

/** Condition waits driven by `notify()`; each wait fails after `timeoutMs` with its label. */
export class Progress {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  until(label: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out waiting for ${label}`));
      }, timeoutMs);
      const waiter = () => {
        if (!check()) return;
        this.waiters.delete(waiter);
        clearTimeout(timer);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }
}

/** Keys look like `<run>:p<producer>:<seq>`. */
export function parseKey(key: string): { producer: string; seq: number } {
  const match = /^(.+):(p\d+):(\d+)$/.exec(key);
  if (match === null) throw new Error(`not a test key: ${key}`);
  return { producer: `${match[1]}:${match[2]}`, seq: Number(match[3]) };
}

/**
 * What at-least-once delivery promises, after deduplication by key: every acknowledged event is in
 * the stream; nothing is there that was not published; and each producer's events (published one
 * after another) appear in publishing order, none missing in between.
 */
export function expectDelivered(
  read: UniqueEvents,
  acknowledged: ReadonlySet<string>,
  wasPublished: (key: string) => boolean,
): void {
  expect(read.foreign).toBe(0);
  const inStream = new Set(read.events.map((event) => event.key));
  const missing = [...acknowledged].filter((key) => !inStream.has(key));
  expect(missing, 'acknowledged events missing from the stream').toEqual([]);
  const unknown = [...inStream].filter((key) => !wasPublished(key));
  expect(unknown, 'stream entries that were never published').toEqual([]);
  const seqs = new Map<string, number[]>();
  for (const event of read.events) {
    const { producer, seq } = parseKey(event.key);
    if (!seqs.has(producer)) seqs.set(producer, []);
    seqs.get(producer)!.push(seq);
    expect(event.data).toBe(`event ${seq} of producer ${producer.split(':').pop()!.slice(1)}`);
  }
  for (const [producer, order] of seqs) {
    expect(order, `order of ${producer}`).toEqual(order.map((_, i) => i));
  }
}
