// Sentinel discovery for the Sentinel router (issue 12, API.md "Sentinel", seed 000 "Sentinel"):
// the current primary, confirmed by ROLE; the replicas the sentinels report healthy, each
// confirmed by ROLE; both kept current through sentinel events (hints, always confirmed) and
// through `resolveAgain`, which the router calls on every data reconnect and on a READONLY reply.
// Nothing here goes through a circuit: sentinel connections, discovery and ROLE checks are never
// checked (seed 000), so they find a healthy replacement while the old primary's circuit is open.
import type { RespireEndpoint, RespireError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import type { RandomSource } from '../util/random.js';
import { rethrowAsync } from '../util/rethrow-async.js';
import { type DiscoveryContext, watcherClosed } from './ask-in-turn.js';
import { backoffDelay, Wakeup } from './backoff.js';
import { EventMonitor } from './event-monitor.js';
import type { SentinelEvent } from './events.js';
import type { SentinelDataSettings } from './exchange.js';
import type { ResolvedSentinelOptions } from './options.js';
import { MAX_ROUNDS, resolvePrimary } from './primary-discovery.js';
import { discoverReplicas } from './replica-discovery.js';
import { SentinelList, sameEndpoint } from './sentinel-list.js';

/**
 * Why the primary was looked up again: a sentinel event (`+switch-master`, `+sdown`, `+odown`),
 * the event subscription (re)starting (`subscribed`), or what the router passed to `resolveAgain`
 * (`reconnect`, `readonly`, …).
 */
export type ResolveReason = string;

export type PrimaryChangeListener = (
  from: RespireEndpoint,
  to: RespireEndpoint,
  reason: ResolveReason,
) => void;
export type ReplicasChangeListener = (replicas: readonly RespireEndpoint[]) => void;

export interface SentinelWatcherOptions {
  readonly sentinel: ResolvedSentinelOptions;
  readonly data: SentinelDataSettings;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** Also discover and follow the replicas (for `readFrom: 'replica' | 'replicaPreferred'`). Default false. */
  readonly watchReplicas?: boolean | undefined;
  /** Failures of background work (a hint's resolution, the event subscription); never thrown. */
  readonly onError?: ((error: RespireError) => void) | undefined;
}

export class SentinelWatcher {
  private current: RespireEndpoint;
  private replicaList: readonly RespireEndpoint[] = [];
  private resolving: Promise<RespireEndpoint> | undefined;
  /** A hint arrived while a resolution was under way: that one may have asked too early. */
  private hintPending: ResolveReason | undefined;
  private refreshingReplicas: Promise<void> | undefined;
  private replicasStale = false;
  private readonly primaryListeners = new Set<PrimaryChangeListener>();
  private readonly replicaListeners = new Set<ReplicasChangeListener>();
  private readonly context: DiscoveryContext;
  private readonly monitor: EventMonitor;

  private constructor(
    private readonly options: SentinelWatcherOptions,
    context: DiscoveryContext,
    /** Shared with the context, so that discovery under way sees a close. */
    private readonly lifecycle: { closed: boolean; readonly abort: AbortController },
    primary: RespireEndpoint,
  ) {
    this.context = context;
    this.current = primary;
    this.monitor = new EventMonitor(context, {
      onEvent: (event) => this.onEvent(event),
      onSubscribed: () => this.hint('subscribed'),
      onError: (error) => this.report(error),
    });
  }

  /**
   * Resolves once the sentinels named a primary and it said ROLE master (and, with
   * `watchReplicas`, once the replicas were looked up), with the event subscription started.
   * @throws RespireConnectionError when no sentinel is reachable, when none knows the service
   *   (two distinct messages naming it), or when the named primary never confirms.
   */
  static async start(options: SentinelWatcherOptions): Promise<SentinelWatcher> {
    const lifecycle = { closed: false, abort: new AbortController() };
    const context: DiscoveryContext = {
      signal: lifecycle.abort.signal,
      sentinel: options.sentinel,
      data: options.data,
      clock: options.clock,
      random: options.random,
      sentinels: new SentinelList(options.sentinel.endpoints),
      wakeup: new Wakeup(options.clock),
      closed: () => lifecycle.closed,
    };
    const primary = await resolvePrimary(context);
    const watcher = new SentinelWatcher(options, context, lifecycle, primary);
    const replicas = options.watchReplicas === true ? watcher.refreshReplicas() : undefined;
    await Promise.all([watcher.monitor.start(), replicas]);
    return watcher;
  }

  /** The primary last confirmed by ROLE. */
  get primary(): RespireEndpoint {
    return this.current;
  }

  /** Replicas last confirmed (empty without `watchReplicas`). */
  replicas(): readonly RespireEndpoint[] {
    return this.replicaList;
  }

  /** The sentinels known, in the order they are asked (configured, then learned). */
  sentinels(): readonly RespireEndpoint[] {
    return this.context.sentinels.all;
  }

  /** The sentinel whose events arrive now, if any. */
  get monitoredSentinel(): RespireEndpoint | undefined {
    return this.monitor.sentinel;
  }

  /** Told after the primary changed (the new one is already `primary`); returns an unsubscribe. */
  onPrimaryChange(listener: PrimaryChangeListener): () => void {
    this.primaryListeners.add(listener);
    return () => this.primaryListeners.delete(listener);
  }

  /** Told after the replica list changed; returns an unsubscribe. */
  onReplicasChange(listener: ReplicasChangeListener): () => void {
    this.replicaListeners.add(listener);
    return () => this.replicaListeners.delete(listener);
  }

  /**
   * Asks the sentinels again and confirms with ROLE; concurrent calls share one resolution.
   * Resolves with the primary (changed or not); rejects as `start` does, the primary unchanged.
   */
  resolveAgain(reason: ResolveReason): Promise<RespireEndpoint> {
    if (this.closed) return Promise.reject(watcherClosed(this.options.sentinel.serviceName));
    if (this.resolving === undefined) {
      const resolving = this.resolve(reason);
      this.resolving = resolving;
      const done = (): void => {
        if (this.resolving === resolving) this.resolving = undefined;
        this.rerunIfHinted();
      };
      resolving.then(done, done);
    }
    return this.resolving;
  }

  /** Stops the event subscription and waits for discovery under way to end. */
  async close(): Promise<void> {
    this.destroy();
    await Promise.allSettled([this.resolving, this.refreshingReplicas]);
  }

  /** Stops at once; discovery under way fails at its next step. */
  destroy(): void {
    this.lifecycle.closed = true;
    // Conversations under way (a black-holed sentinel's connect) end now, not at their timeout.
    this.lifecycle.abort.abort(watcherClosed(this.options.sentinel.serviceName));
    this.monitor.stop();
    this.context.wakeup.wake();
    this.primaryListeners.clear();
    this.replicaListeners.clear();
  }

  private get closed(): boolean {
    return this.lifecycle.closed;
  }

  private async resolve(reason: ResolveReason): Promise<RespireEndpoint> {
    const primary = await resolvePrimary(this.context);
    if (this.closed) throw watcherClosed(this.options.sentinel.serviceName);
    const from = this.current;
    if (sameEndpoint(from, primary)) return primary;
    // The state changes before any listener runs (STYLE.md); a throwing listener changes nothing.
    this.current = primary;
    for (const listener of [...this.primaryListeners]) this.call(() => listener(from, primary, reason));
    // The replica list follows a failover: the new primary left it, the old one may join it.
    if (this.options.watchReplicas === true) void this.refreshReplicas();
    return primary;
  }

  private onEvent(event: SentinelEvent): void {
    if (event.service !== this.options.sentinel.serviceName || this.closed) return;
    switch (event.channel) {
      case '+switch-master':
        this.hint('switch-master');
        return;
      case '+sentinel':
        // Learned on the next ask, which pipelines SENTINEL SENTINELS (a hint is never trusted).
        if (this.options.watchReplicas === true) void this.refreshReplicas();
        else void this.resolveAgain('+sentinel').catch(() => {});
        return;
      default:
        if (event.instance === 'master' && (event.channel === '+sdown' || event.channel === '+odown')) {
          this.hint(event.channel);
        } else if (event.instance === 'slave' && this.options.watchReplicas === true) {
          void this.refreshReplicas();
        }
    }
  }

  /**
   * A hint that the primary may have changed: a resolution under way is woken from its backoff and
   * run once more afterwards (it may have asked before the switch); otherwise one starts.
   */
  private hint(reason: ResolveReason): void {
    if (this.closed) return;
    if (this.resolving !== undefined) {
      this.hintPending = reason;
      this.context.wakeup.wake();
      return;
    }
    this.resolveAgain(reason).catch((error: RespireError) => this.report(error));
  }

  private rerunIfHinted(): void {
    const reason = this.hintPending;
    this.hintPending = undefined;
    if (reason !== undefined && !this.closed) this.hint(reason);
  }

  /**
   * Looks the replicas up again; calls during one mark it stale and it runs once more. While the
   * answer is unsettled (replica-discovery.ts), it asks again after a backoff, at most MAX_ROUNDS times.
   */
  private refreshReplicas(): Promise<void> {
    if (this.refreshingReplicas !== undefined) {
      this.replicasStale = true;
      return this.refreshingReplicas;
    }
    const refresh = (async () => {
      let unsettledRounds = 0;
      do {
        this.replicasStale = false;
        try {
          const found = await discoverReplicas(this.context);
          if (this.closed) return;
          this.setReplicas(found.replicas);
          if (found.unsettled && ++unsettledRounds < MAX_ROUNDS) {
            await this.context.wakeup.pause(backoffDelay(unsettledRounds, this.context.random));
            this.replicasStale = true;
          }
        } catch (error) {
          if (!this.closed) this.report(error as RespireError);
        }
      } while (this.replicasStale && !this.closed);
    })();
    this.refreshingReplicas = refresh;
    void refresh.then(() => {
      this.refreshingReplicas = undefined;
    });
    return refresh;
  }

  private setReplicas(found: readonly RespireEndpoint[]): void {
    const previous = this.replicaList;
    if (found.length === previous.length && found.every((replica, i) => sameEndpoint(replica, previous[i]))) {
      return;
    }
    this.replicaList = Object.freeze([...found]);
    for (const listener of [...this.replicaListeners]) this.call(() => listener(this.replicaList));
  }

  private call(listener: () => void): void {
    try {
      listener();
    } catch (error) {
      // The caller's bug surfaces as an uncaught exception instead of vanishing (rethrow-async.ts).
      rethrowAsync(error);
    }
  }

  private report(error: RespireError): void {
    if (this.closed) return;
    try {
      this.options.onError?.(error);
    } catch (thrown) {
      rethrowAsync(thrown);
    }
  }
}
