// SharedCircuitRegistry (API.md "Circuits shared across worker threads"): one circuit per endpoint
// for every thread of a process, its whole state in one SharedArrayBuffer handed to workers. A
// bounded table of endpoint slots with seed 000's idle-histories rule (BREAKER.md 16) applied across
// threads; a full table is an error, never a slot shared by two endpoints.
import { RespireConfigurationError, RespireError } from '../../errors.js';
import { processClock } from '../../util/clock.js';
import { turnCachedClock } from '../../util/turn-clock.js';
import type { CircuitState } from '../circuit-state.js';
import {
  type CircuitBreakerEnvironment,
  clockOf,
  listenerErrorReporterOf,
  randomOf,
} from '../environment.js';
import {
  type ResolvedCircuitBreakerOptions,
  type RespireCircuitBreakerOptions,
  validateCircuitBreakerOptions,
} from '../options.js';
import type { EndpointTransitionListener } from '../registry.js';
import { MAX_IDLE_HISTORIES } from '../registry.js';
import { Notifier } from '../transition-notifier.js';
import type { SharedCircuitContext } from './circuit-context.js';
import { EndpointTable } from './endpoint-table.js';
import {
  H_MAGIC,
  H_MAX_ENDPOINTS,
  H_MAX_IDLE,
  H_VERSION,
  HEADER_BYTES,
  LAYOUT_VERSION,
  Layout,
  MAGIC,
  PROBE_TIMEOUT_BYTE,
  readOptions,
  writeOptions,
} from './layout.js';
import { SharedCircuit } from './shared-circuit.js';
import { MAX_SHARED_PROBES, StateWordLayout } from './state-word.js';

/** Endpoints a registry holds by default, in use or idle. */
export const DEFAULT_MAX_ENDPOINTS = 64;
/** Most endpoints one registry can hold. */
export const MAX_SHARED_ENDPOINTS = 4096;
/** The default `probeTimeout`: longer than a default client's capacity wait and command timeout together. */
export const DEFAULT_PROBE_TIMEOUT = 30_000;
/** Longest `probeTimeout` (about 12 days): probe times are kept in milliseconds modulo 2^32. */
export const MAX_PROBE_TIMEOUT = 2 ** 30;

/** The options of a shared registry: the circuit's, fixed for every thread, and the table's size. */
export interface SharedCircuitRegistryOptions extends RespireCircuitBreakerOptions {
  /** Endpoint slots, in use or idle. Default 64; an integer, 1 through 4096. */
  maxEndpoints?: number;
  /** Idle histories kept beyond those in use (BREAKER.md 16), within `maxEndpoints`. Default 16; 0 through 4096. */
  maxIdleHistories?: number;
  /**
   * How long, in milliseconds, a half-open circuit whose probe slots are all taken may go without a
   * probe being taken, before the next admission attempt in any thread starts a new half-open round
   * (keeping the probe successes counted) and is its probe. A thread ended while it held a probe
   * (`worker.terminate()`, a crash) never gives its slot back; without this bound the circuit would
   * refuse every command for good (BREAKER.md 12). The outcome of a probe from the old round
   * changes nothing (BREAKER.md 11). The same bound holds for a circuit's guard (held while an
   * outcome is recorded, well under a microsecond): a thread waiting for it takes it from a holder
   * it has seen hold it this long. Set it above the longest a live thread's probe can take (a
   * client's `acquireTimeout` plus `commandTimeout`): a longer probe is started again beside it.
   * It also bounds how long a thread whose event loop is blocked (a long synchronous run) still
   * counts as alive when the table is full and the holds of ended threads are looked for
   * (holder-records.ts): keep it above the longest such run.
   * Default 30000; finite, greater than 0, at most 2^30 (about 12 days).
   */
  probeTimeout?: number;
}

/** A thread's hold on an endpoint's shared circuit. `release()` once when the connection is gone. */
export interface SharedCircuitLease {
  /** This thread's handle on the endpoint's circuit, shared by every lease of the same key. */
  readonly breaker: SharedCircuit;
  /** Ends the hold; later calls do nothing. */
  release(): void;
}

interface LocalEntry {
  readonly key: string;
  readonly slot: number;
  readonly circuit: SharedCircuit;
  leases: number;
  readonly stopForwarding: () => void;
}

/**
 * Made once (`new SharedCircuitRegistry(options)`), its `buffer` handed to workers, attached in
 * each (`SharedCircuitRegistry.attach(buffer)`). Every thread sees one state per endpoint key.
 * Each object is one thread's view: its clock, its listeners, its handles.
 */
export class SharedCircuitRegistry {
  /** The shared state, to hand to workers for `SharedCircuitRegistry.attach(buffer)`. */
  readonly buffer: SharedArrayBuffer;
  /** The circuit options every thread's circuits run with, validated and with defaults filled. */
  readonly options: ResolvedCircuitBreakerOptions;
  /** Endpoint slots, in use or idle. */
  readonly maxEndpoints: number;
  /** Idle histories kept beyond those in use. */
  readonly maxIdleHistories: number;
  /** How long a full half-open round may go without a probe taken before it starts again, or a guard be held. */
  readonly probeTimeout: number;
  private readonly context: SharedCircuitContext;
  private readonly table: EndpointTable;
  private readonly local = new Map<string, LocalEntry>();
  /** Leases `circuit(endpoint)` took for this view. */
  private readonly held = new Map<string, SharedCircuitLease>();
  private readonly transitions: Notifier<[string, CircuitState, CircuitState]>;

  /**
   * A new registry and its buffer, seen from this thread.
   * @throws RespireConfigurationError when an option is out of range.
   */
  constructor(options: SharedCircuitRegistryOptions = {}, environment: CircuitBreakerEnvironment = {}) {
    if (options === null || typeof options !== 'object')
      throw new RespireConfigurationError('options', options, 'an object');
    const {
      maxEndpoints = DEFAULT_MAX_ENDPOINTS,
      maxIdleHistories = MAX_IDLE_HISTORIES,
      probeTimeout = DEFAULT_PROBE_TIMEOUT,
      ...circuit
    } = options;
    const resolved = validateSharedOptions(circuit);
    if (!Number.isInteger(maxEndpoints) || maxEndpoints < 1 || maxEndpoints > MAX_SHARED_ENDPOINTS) {
      throw new RespireConfigurationError(
        'maxEndpoints',
        maxEndpoints,
        `an integer from 1 through ${MAX_SHARED_ENDPOINTS}`,
      );
    }
    if (
      !Number.isInteger(maxIdleHistories) ||
      maxIdleHistories < 0 ||
      maxIdleHistories > MAX_SHARED_ENDPOINTS
    ) {
      throw new RespireConfigurationError(
        'maxIdleHistories',
        maxIdleHistories,
        `an integer from 0 through ${MAX_SHARED_ENDPOINTS}`,
      );
    }
    validateProbeTimeout(probeTimeout);
    const layout = new Layout(maxEndpoints, resolved.maximumSampleCount);
    const buffer = new SharedArrayBuffer(layout.totalBytes);
    const header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    header[H_VERSION] = LAYOUT_VERSION;
    header[H_MAX_ENDPOINTS] = maxEndpoints;
    header[H_MAX_IDLE] = maxIdleHistories;
    writeOptions(buffer, resolved);
    new Float64Array(buffer, PROBE_TIMEOUT_BYTE, 1)[0] = probeTimeout;
    // Published last: a buffer is a registry's once its magic is there.
    Atomics.store(header, H_MAGIC, MAGIC);
    this.buffer = buffer;
    this.options = resolved;
    this.maxEndpoints = maxEndpoints;
    this.maxIdleHistories = maxIdleHistories;
    this.probeTimeout = probeTimeout;
    this.context = contextOf(buffer, layout, resolved, probeTimeout, environment);
    this.table = tableOf(this.context, layout, maxIdleHistories);
    this.transitions = new Notifier(this.context.reportListenerError);
  }

  /**
   * This thread's view of the registry whose `buffer` another thread made. `environment` is this
   * thread's clock, random source and listener-error reporter; the default clock is the process's
   * monotonic clock (util/clock.ts `processClock`), read once per synchronous run, since every
   * thread's `performance.now()` starts at its own origin and `performance.timeOrigin` follows
   * the wall clock at the thread's start.
   * @throws RespireConfigurationError when `buffer` is not a registry's buffer.
   */
  static attach(
    buffer: SharedArrayBuffer,
    environment: CircuitBreakerEnvironment = {},
  ): SharedCircuitRegistry {
    const header =
      buffer instanceof SharedArrayBuffer && buffer.byteLength >= HEADER_BYTES
        ? new Int32Array(buffer, 0, HEADER_BYTES / 4)
        : undefined;
    if (header === undefined || Atomics.load(header, H_MAGIC) !== MAGIC) {
      throw new RespireConfigurationError(
        'buffer',
        buffer,
        "the SharedArrayBuffer of a SharedCircuitRegistry (its 'buffer'), from this version of respire",
      );
    }
    const version = header[H_VERSION]!;
    if (version !== LAYOUT_VERSION) {
      // A registry's buffer all the same, made by another copy of respire (two versions installed,
      // one per thread's bundle): say so, rather than call it not a registry's buffer.
      const allowed = `a SharedCircuitRegistry buffer of layout version ${LAYOUT_VERSION}`;
      throw new RespireConfigurationError('buffer', buffer, allowed, {
        message:
          `invalid option buffer: a SharedCircuitRegistry buffer of layout version ${version}, made by another version of respire; ` +
          `this one reads layout version ${LAYOUT_VERSION}: make the registry and attach it with the same version of respire`,
      });
    }
    const view: SharedCircuitRegistry = Object.create(SharedCircuitRegistry.prototype);
    const resolved = validateSharedOptions(readOptions(buffer));
    const maxEndpoints = header[H_MAX_ENDPOINTS]!;
    const layout = new Layout(maxEndpoints, resolved.maximumSampleCount);
    if (layout.totalBytes !== buffer.byteLength) {
      throw new RespireConfigurationError('buffer', buffer, 'a whole SharedCircuitRegistry buffer');
    }
    const probeTimeout = new Float64Array(buffer, PROBE_TIMEOUT_BYTE, 1)[0]!;
    validateProbeTimeout(probeTimeout);
    const context = contextOf(buffer, layout, resolved, probeTimeout, environment);
    Object.assign(view, {
      buffer,
      options: resolved,
      maxEndpoints,
      maxIdleHistories: header[H_MAX_IDLE]!,
      probeTimeout,
      context,
      table: tableOf(context, layout, header[H_MAX_IDLE]!),
      local: new Map(),
      held: new Map(),
      transitions: new Notifier(context.reportListenerError),
    });
    return view;
  }

  /** Endpoints held by any thread, in use or idle. */
  get size(): number {
    return this.table.size();
  }

  /** Endpoints no thread holds. */
  get idleCount(): number {
    return this.table.idleCount();
  }

  /**
   * `endpoint`'s circuit, held by this view until `detach()` (so that it cannot be evicted while
   * this thread may use it). For endpoints that come and go, `acquire` and release instead.
   * @throws RespireError when every slot is held (see `acquire`).
   */
  circuit(endpoint: string): SharedCircuit {
    let lease = this.held.get(endpoint);
    if (lease === undefined) {
      lease = this.acquire(endpoint);
      this.held.set(endpoint, lease);
    }
    return lease.breaker;
  }

  /**
   * Holds `endpoint`'s circuit for a connection: the slot stays this endpoint's while any thread
   * holds it or has an admission in flight on it. A new endpoint takes a free slot, or evicts the
   * least recently used idle one (closed before open); a returning evicted endpoint starts closed.
   * When none is free or idle, the holds of threads that ended without letting go
   * (`worker.terminate()`, a crash) end first (holder-records.ts).
   * @throws RespireConfigurationError (option `maxEndpoints`) when every slot is held, or the key
   *   is longer than 256 UTF-8 bytes.
   */
  acquire(endpoint: string): SharedCircuitLease {
    const entry = this.local.get(endpoint) ?? this.attachEntry(endpoint);
    if (entry.leases++ === 0) entry.circuit.setIdleCallback(null);
    let held = true;
    return {
      breaker: entry.circuit,
      release: () => {
        if (!held) return;
        held = false;
        if (--entry.leases !== 0) return;
        if (entry.circuit.admissionsInFlight === 0) this.dropEntry(entry);
        else entry.circuit.setIdleCallback(() => this.dropEntry(entry));
      },
    };
  }

  /**
   * @internal Makes this thread's next clock reading fresh. The default clock is read once per
   * synchronous run; a client's checks made one by one (a command queued while the circuit is
   * open, one waiting for a connection) must not decide on a reading older than a long
   * synchronous computation (circuit-gate.ts `freshTime`). An injected clock is read every time.
   */
  refreshClock(): void {
    this.context.refreshClock();
  }

  /** Lets go of every circuit `circuit()` took for this view. */
  detach(): void {
    for (const lease of this.held.values()) lease.release();
    this.held.clear();
  }

  /** Subscribes to the transitions this thread makes, on any endpoint; returns the unsubscribe function. */
  onTransition(listener: EndpointTransitionListener): () => void {
    return this.transitions.subscribe(listener);
  }

  private attachEntry(key: string): LocalEntry {
    if (typeof key !== 'string')
      throw new RespireError(`an endpoint key must be a string, got ${typeof key}`);
    const slot = this.table.hold(key);
    const circuit = new SharedCircuit(this.context, slot, this.table.record);
    const entry: LocalEntry = {
      key,
      slot,
      circuit,
      leases: 0,
      stopForwarding: circuit.onTransition((from: CircuitState, to: CircuitState) =>
        this.transitions.emit(key, from, to),
      ),
    };
    this.local.set(key, entry);
    return entry;
  }

  /** This thread no longer holds the endpoint: its hold on the slot ends (it may become idle). */
  private dropEntry(entry: LocalEntry): void {
    if (this.local.get(entry.key) !== entry) return;
    entry.circuit.setIdleCallback(null);
    entry.circuit.retire();
    entry.stopForwarding();
    this.local.delete(entry.key);
    this.table.letGo(entry.slot);
  }
}

/** The circuit options, validated as for `CircuitBreaker`, within the state word's probe limit. */
function validateSharedOptions(options: RespireCircuitBreakerOptions): ResolvedCircuitBreakerOptions {
  const resolved = validateCircuitBreakerOptions(options);
  if (resolved.halfOpenProbeCount > MAX_SHARED_PROBES) {
    throw new RespireConfigurationError(
      'halfOpenProbeCount',
      resolved.halfOpenProbeCount,
      `an integer from 1 through ${MAX_SHARED_PROBES} in a shared registry (the probe counts share the state word)`,
    );
  }
  return resolved;
}

function validateProbeTimeout(probeTimeout: number): void {
  if (typeof probeTimeout !== 'number' || !(probeTimeout > 0 && probeTimeout <= MAX_PROBE_TIMEOUT)) {
    throw new RespireConfigurationError(
      'probeTimeout',
      probeTimeout,
      `a number of milliseconds greater than 0, at most ${MAX_PROBE_TIMEOUT}`,
    );
  }
}

/** This view's access to the endpoint table; liveness checks run on the context's waiting clock. */
function tableOf(context: SharedCircuitContext, layout: Layout, maxIdleHistories: number): EndpointTable {
  const { cells, words, waitClock, probeTimeout } = context;
  return new EndpointTable(cells, layout, words, maxIdleHistories, waitClock, probeTimeout);
}

function noRefresh(): void {}

function contextOf(
  buffer: SharedArrayBuffer,
  layout: Layout,
  options: ResolvedCircuitBreakerOptions,
  probeTimeout: number,
  environment: CircuitBreakerEnvironment,
): SharedCircuitContext {
  const injected = typeof environment.now === 'function';
  const turn = injected ? undefined : turnCachedClock(processClock);
  const clock = turn ?? clockOf(environment);
  return {
    refreshClock: turn?.refresh ?? noRefresh,
    buffer,
    cells: new Int32Array(buffer, 0, layout.totalBytes >> 2),
    layout,
    words: new StateWordLayout(options.halfOpenProbeCount),
    options,
    probeTimeout,
    clock,
    waitClock: injected ? clock : processClock,
    random: randomOf(environment),
    reportListenerError: listenerErrorReporterOf(environment),
  };
}
