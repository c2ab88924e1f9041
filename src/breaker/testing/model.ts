// The naive reference model of one circuit (BREAKER.md "Testing it"): a full outcome log filtered
// by age and count on every read, the failure threshold as an exact decimal fraction, and plain
// fields for the rest. Obviously right rather than fast; `respire/breaker/testing` exports it.
import type { CircuitSnapshot } from '../circuit-breaker.js';
import type { CircuitState } from '../circuit-state.js';
import {
  type ResolvedCircuitBreakerOptions,
  type RespireCircuitBreakerOptions,
  validateCircuitBreakerOptions,
} from '../options.js';
import { seededRandom } from './fake-clock.js';

export type ModelOutcome = 'success' | 'failure' | 'none';

export type ModelAcquire = { admitted: true } | { admitted: false; retryAfter: number | null };

interface LoggedOutcome {
  time: number;
  failed: boolean;
}

/** What the model takes besides the options: the seed of the jitter draws (as given to `fakeClock`). */
export interface BreakerModelEnvironment {
  seed?: number;
  /**
   * For a circuit of a `SharedCircuitRegistry`: its `probeTimeout`. A half-open round whose probe
   * slots are all taken, its latest probe taken that long ago, starts again at the next admission
   * attempt: a new generation, the successes kept, the attempt its probe. Leave it out for
   * `CircuitBreaker`, whose rounds never start again.
   */
  probeTimeout?: number;
}

/**
 * The threshold as the user wrote it, an exact fraction `numerator / denominator` of its shortest
 * decimal spelling (0.07 is 7/100, not the double nearest it): what "failure fraction" means.
 */
function decimalFraction(value: number): { numerator: bigint; denominator: bigint } {
  const [mantissa = '0', exponentText = '0'] = String(value).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const exponent = Number(exponentText) - fraction.length;
  const digits = BigInt(whole + fraction);
  return exponent >= 0
    ? { numerator: digits * 10n ** BigInt(exponent), denominator: 1n }
    : { numerator: digits, denominator: 10n ** BigInt(-exponent) };
}

/** The reference model of one circuit on a hand-driven clock; see `breakerModel`. */
export class BreakerModel {
  readonly options: ResolvedCircuitBreakerOptions;
  /** The raw fake-clock value, which may go backwards. */
  rawTime = 0;
  /** The clamped time: the highest raw value seen at any command. */
  now = Number.NEGATIVE_INFINITY;
  state: CircuitState = 'closed';
  generation = 0;
  openUntil = 0;
  probesInFlight = 0;
  probeSuccesses = 0;
  /** When the latest probe was taken (the clamped time). */
  probeTakenAt = Number.NEGATIVE_INFINITY;
  trips = 0;
  /** Every transition, as `from->to`. */
  readonly transitions: string[] = [];
  /** Every admission ever made, by index: its generation and whether it was completed. */
  readonly admissions: { generation: number; done: boolean }[] = [];
  private log: LoggedOutcome[] = [];
  private readonly random: () => number;
  private readonly probeTimeout: number | undefined;
  private readonly threshold: { numerator: bigint; denominator: bigint };

  constructor(options?: RespireCircuitBreakerOptions, environment: BreakerModelEnvironment = {}) {
    this.options = validateCircuitBreakerOptions(options);
    this.threshold = decimalFraction(this.options.failureRateThreshold);
    this.random = seededRandom(environment.seed ?? 1);
    this.probeTimeout = environment.probeTimeout;
  }

  /** Clamps the clock; called at the start of every command. */
  tick(): number {
    this.now = Math.max(this.now, this.rawTime);
    return this.now;
  }

  /** The outcomes that count now: younger than the window, and only the newest maximumSampleCount. */
  counted(): LoggedOutcome[] {
    const young = this.log.filter((entry) => this.now - entry.time < this.options.samplingWindow);
    return young.slice(-this.options.maximumSampleCount);
  }

  /** Whether an admission now would be admitted (taking nothing): 0, -1 open, -2 probes full. */
  wouldAdmit(): number {
    if (this.state === 'open' && this.now < this.openUntil) return -1;
    if (this.state === 'half_open' && this.probesFull() && !this.probesAbandoned()) return -2;
    return 0;
  }

  acquire(): ModelAcquire {
    if (this.state === 'open') {
      if (this.now < this.openUntil)
        return { admitted: false, retryAfter: Math.max(1, Math.ceil(this.openUntil - this.now)) };
      this.move('half_open');
    } else if (this.state === 'half_open' && this.probesFull()) {
      if (!this.probesAbandoned()) return { admitted: false, retryAfter: null };
      // A new round: the probes in flight become stale, the successes stay counted.
      this.generation++;
      this.probesInFlight = 0;
    }
    if (this.state === 'half_open') {
      this.probesInFlight++;
      this.probeTakenAt = this.now;
    }
    this.admissions.push({ generation: this.generation, done: false });
    return { admitted: true };
  }

  /** Returns whether the admission was still in flight. */
  complete(index: number, outcome: ModelOutcome): boolean {
    const admission = this.admissions[index]!;
    if (admission.done) return false;
    admission.done = true;
    if (admission.generation !== this.generation) return true;
    if (this.state === 'closed' && outcome !== 'none') {
      this.log.push({ time: this.now, failed: outcome === 'failure' });
      this.log = this.counted();
      if (outcome === 'failure' && this.wouldTrip(this.log)) this.trip();
    } else if (this.state === 'half_open') {
      this.probesInFlight--;
      if (outcome === 'success' && ++this.probeSuccesses >= this.options.halfOpenProbeCount) {
        this.log = [];
        this.trips = 0;
        this.move('closed');
      } else if (outcome === 'failure') {
        this.trip();
      }
    }
    return true;
  }

  /** Failures (recorded now) needed to trip from the current history; Infinity if none would. */
  failuresToTrip(): number {
    const limit = 2 * this.options.maximumSampleCount + this.options.minimumFailureCount;
    const log = this.counted();
    for (let n = 1; n <= limit; n++) {
      log.push({ time: this.now, failed: true });
      if (this.wouldTrip(log.slice(-this.options.maximumSampleCount))) return n;
    }
    return Number.POSITIVE_INFINITY;
  }

  snapshot(): CircuitSnapshot {
    const counted = this.counted();
    return {
      state: this.state,
      failures: counted.filter((entry) => entry.failed).length,
      total: counted.length,
      probesInFlight: this.state === 'half_open' ? this.probesInFlight : 0,
      probeSuccesses: this.state === 'half_open' ? this.probeSuccesses : 0,
      openUntil: this.state === 'open' ? this.openUntil : null,
      consecutiveTrips: this.trips,
      admissionsInFlight: this.admissions.filter((admission) => !admission.done).length,
    };
  }

  private probesFull(): boolean {
    return this.probesInFlight + this.probeSuccesses >= this.options.halfOpenProbeCount;
  }

  /** With a `probeTimeout`: whether the latest probe is that old, in whole milliseconds as a shared circuit keeps it. */
  private probesAbandoned(): boolean {
    if (this.probeTimeout === undefined) return false;
    return Math.floor(this.now) - Math.floor(this.probeTakenAt) >= this.probeTimeout;
  }

  /** Exact: failures >= minimum and failures / total >= numerator / denominator, in integers. */
  private wouldTrip(log: LoggedOutcome[]): boolean {
    const failures = log.filter((entry) => entry.failed).length;
    const { numerator, denominator } = this.threshold;
    return (
      failures >= this.options.minimumFailureCount &&
      BigInt(failures) * denominator >= numerator * BigInt(log.length)
    );
  }

  private trip(): void {
    this.trips++;
    const { openDuration, openDurationMultiplier, maxOpenDuration, openDurationJitter } = this.options;
    let delay = Math.min(openDuration * openDurationMultiplier ** (this.trips - 1), maxOpenDuration);
    if (openDurationJitter > 0) delay *= 1 - openDurationJitter * this.random();
    this.openUntil = this.now + delay;
    this.move('open');
  }

  private move(to: CircuitState): void {
    this.transitions.push(`${this.state}->${to}`);
    this.state = to;
    this.generation++;
    this.probesInFlight = 0;
    this.probeSuccesses = 0;
  }
}

/** The reference model of a circuit with `options` (validated as `CircuitBreaker` validates them). */
export function breakerModel(
  options?: RespireCircuitBreakerOptions,
  environment?: BreakerModelEnvironment,
): BreakerModel {
  return new BreakerModel(options, environment);
}
