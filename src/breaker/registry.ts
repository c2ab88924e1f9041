// One circuit per endpoint key, shared by every connection to that endpoint, with a bounded set of
// idle histories kept for returning endpoints (BREAKER.md 15-16; seed 000 "Rejections").
import { RespireConfigurationError } from '../errors.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { CircuitState } from './circuit-state.js';
import { type CircuitBreakerEnvironment, listenerErrorReporterOf } from './environment.js';
import {
  type ResolvedCircuitBreakerOptions,
  type RespireCircuitBreakerOptions,
  validateCircuitBreakerOptions,
} from './options.js';
import { Notifier } from './transition-notifier.js';

/** Idle histories kept beyond those in use (BREAKER.md 16). */
export const MAX_IDLE_HISTORIES = 16;

export interface CircuitBreakerRegistryEnvironment extends CircuitBreakerEnvironment {
  /** Idle histories kept beyond those in use; default 16. Tests lower it. */
  maxIdleHistories?: number;
}

/** A connection's hold on its endpoint's circuit. `release()` once when the connection is gone. */
export interface CircuitBreakerLease {
  /** The endpoint's circuit, shared by every lease of the same key. */
  readonly breaker: CircuitBreaker;
  /** Ends the hold; later calls do nothing. */
  release(): void;
}

/** Called after a state change of any endpoint's circuit. */
export type EndpointTransitionListener = (endpoint: string, from: CircuitState, to: CircuitState) => void;

interface Entry {
  readonly key: string;
  readonly breaker: CircuitBreaker;
  /** Leases not yet released. */
  uses: number;
  readonly onIdle: () => void;
  /** Stops forwarding the circuit's transitions; called on eviction. */
  readonly stopForwarding: () => void;
}

/**
 * Maps endpoint keys (`host:port` as configured, or the address a cluster reports) to circuits.
 * A circuit is *in use* while a lease is held or an admission is in flight, and *idle* otherwise.
 * Idle circuits beyond `maxIdleHistories` are evicted least recently used first, closed ones
 * before open ones; eviction emits nothing, and a later request for the key starts a fresh, closed
 * circuit. Registry work happens per connection and per idle change, never per command in use.
 */
export class CircuitBreakerRegistry {
  /** The options every circuit of the registry runs with, validated and with defaults filled. */
  readonly options: ResolvedCircuitBreakerOptions;
  /** Idle circuits kept beyond those in use before the least recently used is evicted. */
  readonly maxIdleHistories: number;
  private readonly environment: CircuitBreakerEnvironment;
  private readonly entries = new Map<string, Entry>();
  /** Entries without leases, least recently used first; some may have admissions in flight. */
  private readonly unleased = new Map<string, Entry>();
  private readonly transitions: Notifier<[string, CircuitState, CircuitState]>;

  /** @throws RespireConfigurationError when an option is out of range. */
  constructor(options?: RespireCircuitBreakerOptions, environment: CircuitBreakerRegistryEnvironment = {}) {
    this.options = validateCircuitBreakerOptions(options);
    const maxIdle = environment.maxIdleHistories ?? MAX_IDLE_HISTORIES;
    if (typeof maxIdle !== 'number' || !Number.isInteger(maxIdle) || maxIdle < 0) {
      throw new RespireConfigurationError('maxIdleHistories', maxIdle, 'an integer of at least 0');
    }
    this.maxIdleHistories = maxIdle;
    this.environment = environment;
    this.transitions = new Notifier(listenerErrorReporterOf(environment));
  }

  /** Circuits held, in use or idle. */
  get size(): number {
    return this.entries.size;
  }

  /** Circuits with no lease and no admission in flight. */
  get idleCount(): number {
    let idle = 0;
    for (const entry of this.unleased.values()) if (entry.breaker.admissionsInFlight === 0) idle++;
    return idle;
  }

  /** Holds `endpoint`'s circuit for a connection, creating a closed one when there is none. */
  acquire(endpoint: string): CircuitBreakerLease {
    const entry = this.entries.get(endpoint) ?? this.create(endpoint);
    if (entry.uses++ === 0) {
      this.unleased.delete(endpoint);
      entry.breaker.setIdleCallback(null);
    }
    let held = true;
    return {
      breaker: entry.breaker,
      release: () => {
        if (!held) return;
        held = false;
        if (--entry.uses === 0) this.releaseLastLease(entry);
      },
    };
  }

  /**
   * `endpoint`'s circuit without holding it, created closed when there is none: for a check made
   * without a connection. Admissions taken from it keep it in use until they complete; otherwise
   * it may be evicted once it is idle, so hold a lease for anything longer than a synchronous check.
   */
  get(endpoint: string): CircuitBreaker {
    const existing = this.entries.get(endpoint);
    if (existing !== undefined) {
      if (existing.uses === 0) this.touch(existing);
      return existing.breaker;
    }
    const entry = this.create(endpoint);
    entry.breaker.setIdleCallback(entry.onIdle);
    this.unleased.set(endpoint, entry);
    this.evictIdle(entry);
    return entry.breaker;
  }

  /** `endpoint`'s circuit if the registry holds one; changes nothing. */
  peek(endpoint: string): CircuitBreaker | undefined {
    return this.entries.get(endpoint)?.breaker;
  }

  /** Subscribes to every endpoint's transitions; returns the function that unsubscribes. */
  onTransition(listener: EndpointTransitionListener): () => void {
    return this.transitions.subscribe(listener);
  }

  private create(key: string): Entry {
    const breaker = new CircuitBreaker(this.options, this.environment);
    const entry: Entry = {
      key,
      breaker,
      uses: 0,
      onIdle: () => this.becameIdle(entry),
      stopForwarding: breaker.onTransition((from, to) => this.transitions.emit(key, from, to)),
    };
    this.entries.set(key, entry);
    return entry;
  }

  private releaseLastLease(entry: Entry): void {
    entry.breaker.setIdleCallback(entry.onIdle);
    this.unleased.set(entry.key, entry);
    if (entry.breaker.admissionsInFlight === 0) this.evictIdle(null);
  }

  /** The last admission of an unleased circuit completed: it is now the most recently used idle one. */
  private becameIdle(entry: Entry): void {
    this.touch(entry);
    this.evictIdle(null);
  }

  private touch(entry: Entry): void {
    this.unleased.delete(entry.key);
    this.unleased.set(entry.key, entry);
  }

  /** Evicts idle circuits beyond the limit, closed ones first, least recently used first; never `keep`. */
  private evictIdle(keep: Entry | null): void {
    let excess = this.idleCount - this.maxIdleHistories;
    while (excess > 0) {
      const victim = this.oldestIdle('closed', keep) ?? this.oldestIdle(null, keep);
      if (victim === undefined) return;
      this.entries.delete(victim.key);
      this.unleased.delete(victim.key);
      victim.breaker.setIdleCallback(null);
      victim.stopForwarding();
      excess--;
    }
  }

  private oldestIdle(state: CircuitState | null, keep: Entry | null): Entry | undefined {
    for (const entry of this.unleased.values()) {
      if (entry === keep || entry.breaker.admissionsInFlight !== 0) continue;
      if (state === null || entry.breaker.state === state) return entry;
    }
    return undefined;
  }
}
