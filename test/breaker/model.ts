// The naive reference model of one circuit (BREAKER.md "Testing it"): a full outcome log filtered
// by age and count on every read, an exact rational threshold, and plain fields for the rest.
import type { CircuitSnapshot, CircuitState } from '../../src/breaker/index.js';
import { seededRandom } from './support.js';

export interface ModelOptions {
  maximumSampleCount: number;
  minimumFailureCount: number;
  /** The threshold is exactly numerator / denominator. */
  numerator: number;
  denominator: number;
  samplingWindow: number;
  openDuration: number;
  halfOpenProbeCount: number;
  openDurationMultiplier: number;
  /** maxOpenDuration = openDuration * maxOpenFactor. */
  maxOpenFactor: number;
  openDurationJitter: number;
  /** Seed of the random source shared (as two identical generators) with the real breaker. */
  seed: number;
}

export type ModelOutcome = 'success' | 'failure' | 'none';

export type ModelAcquire = { admitted: true } | { admitted: false; retryAfter: number | null };

interface LoggedOutcome {
  time: number;
  failed: boolean;
}

export class BreakerModel {
  /** The raw fake-clock value, which may go backwards. */
  rawTime = 0;
  /** The clamped time: the highest raw value seen at any command. */
  now = Number.NEGATIVE_INFINITY;
  state: CircuitState = 'closed';
  generation = 0;
  openUntil = 0;
  probesInFlight = 0;
  probeSuccesses = 0;
  trips = 0;
  readonly transitions: string[] = [];
  /** Every admission ever made, by index: its generation and whether it was completed. */
  readonly admissions: { generation: number; done: boolean }[] = [];
  private log: LoggedOutcome[] = [];
  private readonly random: () => number;

  constructor(readonly options: ModelOptions) {
    this.random = seededRandom(options.seed);
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

  acquire(): ModelAcquire {
    if (this.state === 'open') {
      if (this.now < this.openUntil)
        return { admitted: false, retryAfter: Math.max(1, Math.ceil(this.openUntil - this.now)) };
      this.move('half_open');
    } else if (
      this.state === 'half_open' &&
      this.probesInFlight + this.probeSuccesses >= this.options.halfOpenProbeCount
    ) {
      return { admitted: false, retryAfter: null };
    }
    if (this.state === 'half_open') this.probesInFlight++;
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

  /** Exact: failures >= minimum and failures / total >= numerator / denominator, in integers. */
  private wouldTrip(log: LoggedOutcome[]): boolean {
    const failures = log.filter((entry) => entry.failed).length;
    const { minimumFailureCount, numerator, denominator } = this.options;
    return failures >= minimumFailureCount && failures * denominator >= numerator * log.length;
  }

  private trip(): void {
    this.trips++;
    const { openDuration, openDurationMultiplier, maxOpenFactor, openDurationJitter } = this.options;
    let delay = Math.min(
      openDuration * openDurationMultiplier ** (this.trips - 1),
      openDuration * maxOpenFactor,
    );
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
