// The client's admission gate over its endpoint's circuit (seed 000 "Endpoint circuit breakers",
// BREAKER.md): every command is admitted right before its write, its health outcome (health.ts)
// ends the admission, and a command that cannot find a connection is checked or counted as a
// selection failure. One registry per client, one circuit per configured endpoint, shared by every
// channel of the client (the shared pipeline, dedicated connections, the subscriber) and its views.
import {
  AdmitRejection,
  CircuitBreakerRegistry,
  type CircuitOutcome,
  type CircuitSnapshot,
  type CircuitState,
  type EndpointCircuit,
  type EndpointCircuitLease,
  type EndpointCircuitSource,
  MAX_ADMISSIONS_IN_FLIGHT,
  type SharedCircuitRegistry,
  type TransitionListener,
} from '../../breaker/index.js';
import type { ResolvedCircuitBreakerOptions } from '../../breaker/options.js';
import {
  RespireCircuitOpenError,
  RespireConfigurationError,
  type RespireEndpoint,
  type RespireError,
  RespireTimeoutError,
} from '../../errors.js';
import type { AdmissionGate } from '../../transport/admission-gate.js';
import type { Channel } from '../../transport/channel.js';
import { type Command, CommandFlags } from '../../transport/command.js';
import { Health, healthOf } from '../../transport/health.js';
import { type Clock, systemClock } from '../../util/clock.js';
import type { RandomSource } from '../../util/random.js';
import { startTimer, stopTimer, type Timer } from '../../util/timers.js';
import { turnCachedClock } from '../../util/turn-clock.js';
import { endpointKey } from '../endpoint.js';
import { forwardTransitionsOnce } from './transition-forwarding.js';

/** What the gate reports; ClientTelemetry (metrics.ts) is one. */
export interface CircuitTelemetry {
  circuitTransition(endpoint: RespireEndpoint, from: CircuitState, to: CircuitState): void;
  circuitRejection(endpoint: RespireEndpoint): void;
}

/** A read-only view of the client's circuit, for diagnostics and tests. */
export interface ClientCircuit {
  /** The circuit's state now: `'closed'`, `'open'` or `'half_open'`. */
  readonly state: CircuitState;
  /** The state with its counts and open deadline, read at once. */
  snapshot(): CircuitSnapshot;
  /** Called after each state change; returns the function that unsubscribes. */
  onTransition(listener: TransitionListener): () => void;
}

export interface CircuitGateOptions {
  readonly endpoint: RespireEndpoint;
  readonly circuitBreaker: ResolvedCircuitBreakerOptions;
  /**
   * How long a probe with no reply deadline (a blocking command, `timeout: 0`) may hold its slot:
   * `commandTimeout`, or `openDuration` when that is 0 (seed 000: a probe is bounded by the command
   * timeout, so a half-open circuit cannot stick).
   */
  readonly commandTimeout: number;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly telemetry: CircuitTelemetry;
}

/**
 * The registry a client's gates share: its clock is read once per synchronous run (see CircuitGate).
 * With `circuitBreaker: { shared }`, the SharedCircuitRegistry given, on its own clock: every
 * thread's times must share one origin, so the client's clock does not apply.
 */
export function circuitRegistry(
  options: Pick<CircuitGateOptions, 'circuitBreaker' | 'clock' | 'random'> & {
    sharedCircuits?: SharedCircuitRegistry | null;
  },
): {
  registry: EndpointCircuitSource;
  freshTime: () => void;
} {
  // A shared registry reads its own clock, turn-cached by default: the one-by-one checks refresh it.
  const shared = options.sharedCircuits;
  if (shared) return { registry: shared, freshTime: () => shared.refreshClock() };
  const { random } = options;
  // The system clock is read at most once per synchronous run: a flush admits a tick's commands
  // and one socket read completes many, and performance.now() would cost ~40 ns per command.
  // An injected clock (tests) is used as it is, so a fake clock moves when the test says. Calls
  // made one by one (a command finding no connection, a dedicated borrow) read the time afresh.
  const turnClock = options.clock === systemClock ? turnCachedClock(systemClock) : undefined;
  const clock = turnClock ?? options.clock;
  const registry = new CircuitBreakerRegistry(options.circuitBreaker, {
    now: () => clock.now(),
    random: () => random.random(),
  });
  return { registry, freshTime: turnClock === undefined ? noop : turnClock.refresh };
}

/** Commands that need no check of their own: the steps after an admitted MULTI. */
const UNCHECKED = CommandFlags.TransactionStep;

export class CircuitGate implements AdmissionGate {
  readonly endpoint: RespireEndpoint;
  /** The circuit, once the registry gave it a slot (see `lease`). */
  private breaker: EndpointCircuit | undefined;
  private release: () => void = noop;
  private stopForwarding: () => void = noop;
  private readonly registry: EndpointCircuitSource;
  /** Why the registry gave no slot last time; after dispose, asked no more. */
  private refused: RespireConfigurationError | undefined;
  private disposed = false;
  private readonly telemetry: CircuitTelemetry;
  private readonly probeBoundMs: number;
  private readonly probeCount: number;
  /** The clock the probe bounds run on. */
  private readonly clock: Clock;
  /** Probes without a reply deadline, with the timer that ends their hold on a slot. */
  private readonly boundedProbes = new Map<Command<unknown>, Timer>();
  /** Makes the next clock reading fresh (a no-op for an injected clock). */
  private readonly freshTime: () => void;

  constructor(options: CircuitGateOptions, shared?: ReturnType<typeof circuitRegistry>) {
    const { endpoint } = options;
    const { registry, freshTime } = shared ?? circuitRegistry(options);
    this.freshTime = freshTime;
    this.registry = registry;
    this.endpoint = endpoint;
    this.telemetry = options.telemetry;
    this.clock = options.clock;
    this.probeBoundMs =
      options.commandTimeout > 0 ? options.commandTimeout : options.circuitBreaker.openDuration;
    this.probeCount = options.circuitBreaker.halfOpenProbeCount;
    this.lease();
    const gate = this;
    this.circuit = {
      // Read by routing (a Cluster replica whose circuit is not open): a circuit with no slot has
      // recorded nothing and rejects nothing itself, so it reads as closed, never a throw.
      get state() {
        const breaker = gate.lease();
        return breaker instanceof RespireConfigurationError ? 'closed' : breaker.state;
      },
      snapshot: () => gate.held().snapshot(),
      onTransition: (listener) => gate.held().onTransition(listener),
    };
  }

  /**
   * The circuit, taking its slot now if it has none: a shared registry whose table is full
   * (issue 15) refuses it with a RespireConfigurationError, which the gate's commands are then
   * refused with (nothing sent), never thrown where the node is made (bad input never crashes
   * the process); the next command asks again, so a slot freed meanwhile is taken.
   */
  private lease(): EndpointCircuit | RespireConfigurationError {
    if (this.breaker !== undefined) return this.breaker;
    if (this.disposed) return this.refused as RespireConfigurationError;
    let lease: EndpointCircuitLease;
    try {
      lease = this.registry.acquire(endpointKey(this.endpoint));
    } catch (error) {
      if (!(error instanceof RespireConfigurationError)) throw error;
      this.refused = error;
      return error;
    }
    const { breaker } = lease;
    this.breaker = breaker;
    this.release = lease.release;
    this.stopForwarding = forwardTransitionsOnce(breaker, (from, to) =>
      this.telemetry.circuitTransition(this.endpoint, from, to),
    );
    return breaker;
  }

  /** The circuit for a caller's diagnostics: throws the table's error when it has no slot. */
  private held(): EndpointCircuit {
    const breaker = this.lease();
    if (breaker instanceof RespireConfigurationError) throw breaker;
    return breaker;
  }

  /** The circuit of a command this gate admitted: it holds a slot since that admission. */
  private get admitted(): EndpointCircuit {
    return this.breaker as EndpointCircuit;
  }

  /** The circuit, read-only: it never hands out admissions. */
  readonly circuit: ClientCircuit;

  /** Right before the write: a ticket in `command.admission`, or the rejection (nothing is sent). */
  admit(command: Command<unknown>): Error | undefined {
    const breaker = this.lease();
    if (breaker instanceof RespireConfigurationError) return breaker;
    const ticket = breaker.tryAdmit();
    if (ticket < 0) return this.refusal(ticket);
    command.admission = ticket;
    if (
      ((command.flags & CommandFlags.Blocking) !== 0 || command.timeoutMs === 0) &&
      breaker.state === 'half_open'
    ) {
      this.boundProbe(command);
    }
    return undefined;
  }

  /**
   * The write of a command that took a probe ticket while it waited (checkWithoutConnection): if
   * its half-open round ended meanwhile (the circuit reopened, or closed), that ticket is stale and
   * would neither count as a probe nor be checked: it ends with no outcome and the command is
   * admitted afresh, so it may be rejected (seed 000 "checked right before sending").
   */
  admitWaited(command: Command<unknown>): Error | undefined {
    if (this.admitted.isCurrent(command.admission as number)) return undefined;
    command.reportHealth(Health.None);
    this.freshTime();
    return this.admit(command);
  }

  /** The admitted command's outcome; Health and CircuitOutcome share their codes. */
  complete(command: Command<unknown>, health: Health): void {
    if (this.boundedProbes.size !== 0) this.unboundProbe(command);
    this.admitted.complete(command.admission as number, health satisfies CircuitOutcome);
  }

  /**
   * Seed 000: while the circuit is open (or every probe slot is taken), a command waiting for a
   * connection is rejected. Past the open delay, a command that waits would be a probe, so it
   * takes its probe slot now and keeps it while it waits (the write then does not admit it again):
   * at most `halfOpenProbeCount` commands wait for a connection to a sick endpoint, the rest are
   * rejected at once. While closed, commands wait and are checked when written.
   */
  checkWithoutConnection(command: Command<unknown>): Error | undefined {
    if ((command.flags & UNCHECKED) !== 0) return undefined;
    this.freshTime();
    const refusal = this.check();
    if (refusal !== undefined || this.admitted.state === 'closed') return refusal;
    const ticket = this.admitted.tryAdmit();
    if (ticket < 0) return this.refusal(ticket);
    command.admission = ticket;
    command.gate = this;
    // Like a probe admitted at its write (admit), one with no reply deadline holds its slot for a bounded time.
    if ((command.flags & CommandFlags.Blocking) !== 0 || command.timeoutMs === 0) this.boundProbe(command);
    return undefined;
  }

  /**
   * Queued on a live connection: while the circuit is open within its open duration, or half-open
   * with every probe slot taken, the admission at the flush would reject it, so it is rejected now
   * (issue 11: a sick Cluster node's callers waited behind every other node's microtasks for it).
   * Nothing is taken: a probe is admitted at the write, as is every command of a closed circuit.
   * One state read per command while closed. Otherwise the time is read afresh, as by every check
   * made one by one: a reading cached earlier in a long synchronous run would reject, as still
   * open, a command the flush admits as a probe.
   */
  rejectWhenQueued(command: Command<unknown>): Error | undefined {
    const breaker = this.breaker;
    if (breaker === undefined || breaker.state === 'closed' || (command.flags & UNCHECKED) !== 0)
      return undefined;
    this.freshTime();
    const code = breaker.check();
    return code < 0 ? this.rejection(code) : undefined;
  }

  /**
   * `rejectWhenQueued` for a command checked after `ahead` others bound for this endpoint, none
   * taking anything (a split write, joined-reply.ts): outside `closed` each would be a probe, so
   * one past the free probe slots is rejected now, not after the others were written (seed 000).
   */
  rejectAmong(command: Command<unknown>, ahead: number): Error | undefined {
    const refusal = this.rejectWhenQueued(command);
    const breaker = this.breaker;
    if (refusal !== undefined || ahead === 0 || breaker === undefined || breaker.state === 'closed')
      return refusal;
    if ((command.flags & UNCHECKED) !== 0) return undefined;
    const { probesInFlight, probeSuccesses } = breaker.snapshot();
    return ahead < this.probeCount - probesInFlight - probeSuccesses
      ? undefined
      : this.rejection(AdmitRejection.ProbesFull);
  }

  /** No connection came in time: a failure, unless the circuit rejects it first (seed 000). */
  selectionFailed(command: Command<unknown>, error: RespireError): Error {
    if ((command.flags & UNCHECKED) !== 0) return error;
    this.freshTime();
    if (command.gate === this) {
      // A probe that waited for a connection in vain: its failure starts a new open interval.
      command.reportHealth(Health.Failure);
      return error;
    }
    return this.recordSelectionFailure(error);
  }

  /**
   * Whether an admission now would admit, taking nothing and counting no rejection: routing's
   * question (a Cluster keyless command passes over a primary that would reject it).
   */
  admitsNow(): boolean {
    const breaker = this.lease();
    if (breaker instanceof RespireConfigurationError) return false;
    if (breaker.state === 'closed') return true;
    this.freshTime();
    return breaker.check() >= 0;
  }

  /** What an admission would say now, taking nothing: the rejection, or undefined. */
  check(): RespireCircuitOpenError | RespireConfigurationError | undefined {
    const breaker = this.lease();
    if (breaker instanceof RespireConfigurationError) return breaker;
    const code = breaker.check();
    return code < 0 ? this.rejection(code) : undefined;
  }

  /**
   * No healthy connection could be selected, though nothing was sent: recorded as a failure
   * through an admission of its own, so while open it is a rejection, and on a half-open probe it
   * starts a new open interval. Returns what the command fails with.
   */
  recordSelectionFailure(error: RespireError): Error {
    const breaker = this.lease();
    if (breaker instanceof RespireConfigurationError) return breaker;
    const ticket = breaker.tryAdmit();
    if (ticket < 0) return this.refusal(ticket);
    breaker.complete(ticket, Health.Failure);
    return error;
  }

  /**
   * Borrows a dedicated connection for a command that has none yet: refused at once while the
   * circuit rejects (no socket is opened for it), and a connection that cannot be opened, for a
   * reason that counts against the endpoint, is a selection failure, unless the client closed
   * the pool meanwhile (a failure the client caused records nothing, seed 000).
   */
  async borrow(pool: { acquire(): Promise<Channel>; isClosed(): boolean }): Promise<Channel> {
    this.freshTime();
    const refusal = this.check();
    if (refusal !== undefined) throw refusal;
    try {
      return await pool.acquire();
    } catch (error) {
      if (pool.isClosed() || healthOf(error) !== Health.Failure) throw error;
      throw this.recordSelectionFailure(error as RespireError);
    }
  }

  /** The client closed: its hold on the circuit ends, and so do the listeners it added. */
  dispose(): void {
    this.disposed = true;
    this.stopForwarding();
    this.release();
  }

  /**
   * Why a ticket was refused: the circuit's rejection, or, past `MAX_ADMISSIONS_IN_FLIGHT`
   * admissions in flight, a capacity error (nothing sent, nothing recorded, not a rejection).
   */
  private refusal(code: number): Error {
    if (code !== AdmitRejection.Saturated) return this.rejection(code);
    return new RespireTimeoutError(
      `more than ${MAX_ADMISSIONS_IN_FLIGHT} commands in flight to ${endpointKey(this.endpoint)}: no capacity to admit another`,
      'acquire',
      { endpoint: this.endpoint, timeoutMs: 0, written: false },
    );
  }

  /** Builds the error only now, on the rejection path (seed 000 "Rejections"). */
  private rejection(code: number): RespireCircuitOpenError {
    this.telemetry.circuitRejection(this.endpoint);
    return new RespireCircuitOpenError(
      this.endpoint,
      code === AdmitRejection.ProbesFull ? null : this.admitted.lastRetryAfter,
    );
  }

  /**
   * A probe that may never get a reply (BLPOP 0) would hold its slot for good and keep the circuit
   * half-open: past the bound it ends with no outcome (BREAKER.md 10, 12). The command itself keeps
   * waiting for its reply.
   */
  private boundProbe(command: Command<unknown>): void {
    const timer = startTimer(
      this.clock,
      () => {
        this.boundedProbes.delete(command);
        command.reportHealth(Health.None);
      },
      this.probeBoundMs,
      true,
    );
    this.boundedProbes.set(command, timer);
  }

  private unboundProbe(command: Command<unknown>): void {
    const timer = this.boundedProbes.get(command);
    if (timer === undefined) return;
    stopTimer(this.clock, timer);
    this.boundedProbes.delete(command);
  }
}

function noop(): void {}
