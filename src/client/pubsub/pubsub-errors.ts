// Where the subscriber reports what goes wrong away from any caller's promise (issue 19 #6, #11):
// a listener that threw, a subscription the server refused to restore after a reconnect, every
// subscription lost when the reconnect policy gave up. `redis.onPubSubError(listener)` hears them
// (a typed listener that returns its unsubscribe function, as `circuit.onTransition`).
import { rethrowAsync } from '../../util/rethrow-async.js';
import type { SubscriptionKind } from './pubsub-registry.js';

/**
 * - `listener`: a message listener threw; the other listeners still got the message.
 * - `restore`: after a reconnect (or a move to another Cluster node) the server refused to
 *   subscribe `names` again (an ACL change), or they could not be sent; they are forgotten. Also a restore the server confirmed with another count than was sent
 *   (`names` empty).
 * - `lost`: the reconnect policy gave up on the subscriber connection; `names` of every kind are
 *   forgotten, and the next subscribe opens a new connection.
 */
export type PubSubErrorSource = 'listener' | 'restore' | 'lost';

export interface PubSubErrorEvent {
  readonly source: PubSubErrorSource;
  /** The kind of `names`; undefined for `lost`, which covers every kind. */
  readonly kind: SubscriptionKind | undefined;
  readonly names: readonly string[];
}

/** Hears an error of the subscriber; what it throws is rethrown from a microtask. */
export type PubSubErrorListener = (error: unknown, event: PubSubErrorEvent) => void;

export class PubSubErrors {
  private readonly listeners = new Set<PubSubErrorListener>();

  /** Adds a listener; returns the function that removes it. */
  add(listener: PubSubErrorListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells every listener. With none, a listener's own error is rethrown from a microtask (an
   * application bug surfaces like any uncaught exception), anything else becomes a process
   * warning: it is the server's or the network's doing, so it must never crash the process.
   */
  report(error: unknown, event: PubSubErrorEvent): void {
    if (this.listeners.size === 0) {
      if (event.source === 'listener') rethrowAsync(error);
      else process.emitWarning(describe(error, event), 'RespirePubSubWarning');
      return;
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(error, event);
      } catch (thrown) {
        rethrowAsync(thrown);
      }
    }
  }
}

/** The warning's text: what happened and the error's message, never the names themselves. */
function describe(error: unknown, event: PubSubErrorEvent): string {
  const message = error instanceof Error ? error.message : String(error);
  const what =
    event.source === 'lost'
      ? `the subscriber connection is lost for good; ${event.names.length} subscription(s) forgotten`
      : `${event.names.length} ${event.kind} subscription(s) could not be restored and are forgotten`;
  return `${what}: ${message} (listen with redis.onPubSubError to handle this)`;
}
