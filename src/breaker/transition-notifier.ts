// Transition listeners: subscription with unsubscribe functions, delivery in order after the state
// is committed, and isolation from a listener that throws (STYLE.md "Async, time, randomness").
import { rethrowAsync } from '../util/rethrow-async.js';

/**
 * Delivers events to listeners. An event raised by a listener (a re-entrant call into the breaker
 * that changes state again) is queued and delivered after the current one reaches every listener,
 * so every listener sees events in the order they happened. Subscribing or unsubscribing during
 * delivery takes effect from the next event.
 */
export class Notifier<Args extends unknown[]> {
  private listeners: ReadonlyArray<(...args: Args) => void> = [];
  private readonly queue: Args[] = [];
  private delivering = false;

  constructor(private readonly reportError: (error: unknown) => void) {}

  /** Adds a listener; the returned function removes it (calling it again does nothing). */
  subscribe(listener: (...args: Args) => void): () => void {
    const entry = (...args: Args) => listener(...args);
    this.listeners = [...this.listeners, entry];
    return () => {
      this.listeners = this.listeners.filter((candidate) => candidate !== entry);
    };
  }

  emit(...args: Args): void {
    if (this.listeners.length === 0) return;
    this.queue.push(args);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let i = 0; i < this.queue.length; i++) {
        const event = this.queue[i]!;
        for (const listener of this.listeners) {
          try {
            listener(...event);
          } catch (error) {
            this.report(error);
          }
        }
      }
    } finally {
      this.queue.length = 0;
      this.delivering = false;
    }
  }

  /** A reporter that throws must not stop delivery either. */
  private report(error: unknown): void {
    try {
      this.reportError(error);
    } catch (reportFailure) {
      rethrowAsync(reportFailure);
    }
  }
}
