// Which channels, patterns and shard channels the subscriber connection should be subscribed to,
// and whose listeners hear each one. Pure bookkeeping: no I/O, so every state change commits before
// any command is sent or any listener runs (STYLE.md "Async, time, randomness").

/** Receives a message: `channel` is where it was published; `pattern` is set for PSUBSCRIBE. */
export type PubSubListener = (message: string | Buffer, channel: string, pattern?: string) => void;

/** The three pub/sub namespaces: SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE (sharded, Redis 7). */
export type SubscriptionKind = 'channel' | 'pattern' | 'shard';

export const SUBSCRIPTION_KINDS: readonly SubscriptionKind[] = ['channel', 'pattern', 'shard'];

/** The command that subscribes and the one that unsubscribes, per kind. */
export const SUBSCRIBE_COMMAND = {
  channel: 'SUBSCRIBE',
  pattern: 'PSUBSCRIBE',
  shard: 'SSUBSCRIBE',
} as const;
export const UNSUBSCRIBE_COMMAND = {
  channel: 'UNSUBSCRIBE',
  pattern: 'PUNSUBSCRIBE',
  shard: 'SUNSUBSCRIBE',
} as const;

/** One subscribed name and its listeners. */
export interface Subscription {
  readonly listeners: Set<PubSubListener>;
  /** Settles when the SUBSCRIBE that created this entry was confirmed (or failed). */
  ready: Promise<void>;
  /** The server confirmed it on the current or a previous connection: restore it on reconnect. */
  confirmed: boolean;
}

export class SubscriptionRegistry {
  private readonly entries: Record<SubscriptionKind, Map<string, Subscription>> = {
    channel: new Map(),
    pattern: new Map(),
    shard: new Map(),
  };
  /** Names with an UNSUBSCRIBE still unconfirmed, so its confirmation is not taken for a drop. */
  private readonly unsubscribing: Record<SubscriptionKind, Map<string, number>> = {
    channel: new Map(),
    pattern: new Map(),
    shard: new Map(),
  };

  get(kind: SubscriptionKind, name: string): Subscription | undefined {
    return this.entries[kind].get(name);
  }

  names(kind: SubscriptionKind): string[] {
    return [...this.entries[kind].keys()];
  }

  /** Names the server confirmed, which a new connection must subscribe to again. */
  confirmedNames(kind: SubscriptionKind): string[] {
    const names: string[] = [];
    for (const [name, entry] of this.entries[kind]) if (entry.confirmed) names.push(name);
    return names;
  }

  /**
   * Adds `listener` to each name. Returns the names that had no entry (the caller must subscribe
   * to them), the entries that already existed (whose confirmation it must wait for), and the names
   * where the listener was new (what a failed subscribe must take back).
   */
  add(
    kind: SubscriptionKind,
    names: readonly string[],
    listener: PubSubListener,
  ): { fresh: string[]; existing: Subscription[]; added: string[] } {
    const map = this.entries[kind];
    const fresh: string[] = [];
    const existing: Subscription[] = [];
    const added: string[] = [];
    for (const name of names) {
      const entry = map.get(name);
      if (entry === undefined) {
        map.set(name, { listeners: new Set([listener]), ready: Promise.resolve(), confirmed: false });
        fresh.push(name);
        added.push(name);
        continue;
      }
      existing.push(entry);
      if (!entry.listeners.has(listener)) {
        entry.listeners.add(listener);
        added.push(name);
      }
    }
    return { fresh, existing, added };
  }

  /**
   * Removes `listener` (every listener when undefined) from each name (every name of the kind when
   * undefined). Returns the names left without listeners, which the caller must unsubscribe from.
   */
  remove(kind: SubscriptionKind, names: readonly string[] | undefined, listener?: PubSubListener): string[] {
    const map = this.entries[kind];
    const emptied: string[] = [];
    for (const name of names ?? [...map.keys()]) {
      const entry = map.get(name);
      if (entry === undefined) continue;
      if (listener === undefined) entry.listeners.clear();
      else entry.listeners.delete(listener);
      if (entry.listeners.size > 0) continue;
      map.delete(name);
      emptied.push(name);
    }
    return emptied;
  }

  /** Forgets names outright (the server dropped them); returns their entries. */
  drop(kind: SubscriptionKind, names: readonly string[]): Subscription[] {
    const map = this.entries[kind];
    const dropped: Subscription[] = [];
    for (const name of names) {
      const entry = map.get(name);
      if (entry === undefined) continue;
      map.delete(name);
      dropped.push(entry);
    }
    return dropped;
  }

  /** Counts an UNSUBSCRIBE sent for `names`; `settle` uncounts it once it completes or fails. */
  beginUnsubscribe(kind: SubscriptionKind, names: readonly string[]): void {
    const pending = this.unsubscribing[kind];
    for (const name of names) pending.set(name, (pending.get(name) ?? 0) + 1);
  }

  settleUnsubscribe(kind: SubscriptionKind, names: readonly string[]): void {
    const pending = this.unsubscribing[kind];
    for (const name of names) {
      const left = (pending.get(name) ?? 1) - 1;
      if (left > 0) pending.set(name, left);
      else pending.delete(name);
    }
  }

  isUnsubscribing(kind: SubscriptionKind, name: string): boolean {
    return this.unsubscribing[kind].has(name);
  }
}
