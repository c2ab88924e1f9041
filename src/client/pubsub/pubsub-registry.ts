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
  readonly name: string;
  readonly listeners: Set<PubSubListener>;
  /**
   * The listeners as of the last change, built when a message is delivered: a listener added or
   * removed during a delivery takes effect from the next message (issue 19 #13).
   */
  snapshot: readonly PubSubListener[] | undefined;
  /** Settles when the SUBSCRIBE that created this entry was confirmed (or failed). */
  ready: Promise<void>;
  /** The server confirmed it on the current or a previous connection: restore it on reconnect. */
  confirmed: boolean;
  /**
   * Settles `ready` while the name waits to be restored on a new connection (`awaitRestore`): a
   * subscribe of a held name resolves once the server holds it again, not before.
   */
  restoring: { resolve(): void; reject(error: unknown): void } | undefined;
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

  /** Entries the server confirmed, which a new connection must subscribe to again. */
  confirmed(kind: SubscriptionKind): Subscription[] {
    const entries: Subscription[] = [];
    for (const entry of this.entries[kind].values()) if (entry.confirmed) entries.push(entry);
    return entries;
  }

  /** Whether `entry` is still the one registered for its name (not removed or replaced since). */
  isCurrent(kind: SubscriptionKind, entry: Subscription): boolean {
    return this.entries[kind].get(entry.name) === entry;
  }

  /**
   * Adds `listener` to each name. Returns the entries it created (the caller must subscribe to
   * their names), the entries that already existed (whose confirmation it must wait for), and the
   * entries where the listener was new (what a failed subscribe must take back: `takeBack`).
   */
  add(
    kind: SubscriptionKind,
    names: readonly string[],
    listener: PubSubListener,
  ): { fresh: Subscription[]; existing: Subscription[]; added: Subscription[] } {
    const map = this.entries[kind];
    const fresh: Subscription[] = [];
    const existing: Subscription[] = [];
    const added: Subscription[] = [];
    for (const name of names) {
      let entry = map.get(name);
      if (entry === undefined) {
        entry = {
          name,
          listeners: new Set([listener]),
          snapshot: undefined,
          ready: Promise.resolve(),
          confirmed: false,
          restoring: undefined,
        };
        map.set(name, entry);
        fresh.push(entry);
        added.push(entry);
        continue;
      }
      existing.push(entry);
      if (!entry.listeners.has(listener)) {
        entry.listeners.add(listener);
        entry.snapshot = undefined;
        added.push(entry);
      }
    }
    return { fresh, existing, added };
  }

  /**
   * Takes `listener` back from the entries a failed subscribe added it to, leaving alone any entry
   * that has since been removed or replaced by a later subscribe of the same name (issue 19 #3).
   * Returns the names left without listeners, which the caller must unsubscribe from.
   */
  takeBack(kind: SubscriptionKind, entries: readonly Subscription[], listener: PubSubListener): string[] {
    const emptied: string[] = [];
    for (const entry of entries) {
      if (!this.isCurrent(kind, entry)) continue;
      entry.listeners.delete(listener);
      entry.snapshot = undefined;
      if (entry.listeners.size > 0) continue;
      this.forget(kind, entry);
      emptied.push(entry.name);
    }
    return emptied;
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
      entry.snapshot = undefined;
      if (entry.listeners.size > 0) continue;
      this.forget(kind, entry);
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
      this.forget(kind, entry);
      dropped.push(entry);
    }
    return dropped;
  }

  /** Forgets every entry of every kind (the connection that held them is gone for good). */
  clear(): Record<SubscriptionKind, Subscription[]> {
    const cleared = { channel: [], pattern: [], shard: [] } as Record<SubscriptionKind, Subscription[]>;
    for (const kind of SUBSCRIPTION_KINDS) {
      cleared[kind] = [...this.entries[kind].values()];
      for (const entry of cleared[kind]) this.forget(kind, entry);
    }
    return cleared;
  }

  /**
   * The connection that held the confirmed entries is lost: until each is restored on a new one
   * (`restoreSettled`), a subscribe of its name waits for that, as for a first SUBSCRIBE.
   */
  awaitRestore(): void {
    for (const kind of SUBSCRIPTION_KINDS) {
      for (const entry of this.entries[kind].values()) {
        if (!entry.confirmed || entry.restoring !== undefined) continue;
        entry.ready = new Promise<void>((resolve, reject) => {
          entry.restoring = { resolve, reject };
        });
        // Each subscribe waiting on it handles a failure itself.
        entry.ready.catch(ignore);
      }
    }
  }

  /** The server holds `entry` again (no `error`), or refused it; its waiting subscribes settle. */
  restoreSettled(entry: Subscription, error?: unknown): void {
    const restoring = entry.restoring;
    if (restoring === undefined) return;
    entry.restoring = undefined;
    if (error === undefined) restoring.resolve();
    else restoring.reject(error);
  }

  /** No restore will come (the client closed): every subscribe still waiting for one fails. */
  failRestores(error: unknown): void {
    for (const kind of SUBSCRIPTION_KINDS) {
      for (const entry of this.entries[kind].values()) this.restoreSettled(entry, error);
    }
  }

  /**
   * Removes an entry. A subscribe still waiting for its restore resolves: the name was given up
   * here (unsubscribed, dropped or cleared) and will not be restored; a failure that ended it has
   * already been settled (`restoreSettled`).
   */
  private forget(kind: SubscriptionKind, entry: Subscription): void {
    this.entries[kind].delete(entry.name);
    this.restoreSettled(entry);
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

function ignore(): void {}
