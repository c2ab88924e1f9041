// The fast-check commands of the model-based breaker test: acquire (object or ticket API), complete
// (any admission, again and again), advance the clock (biased to the option boundaries, sometimes
// backwards) and bursts of outcomes, including bursts that land on the trip boundary.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { type CircuitAdmission, type CircuitBreaker, CircuitOutcome } from '../../src/breaker/index.js';
import type { BreakerModel, ModelOutcome } from './model.js';
import type { FakeClock } from './support.js';

export type { ModelOptions } from './model.js';

export interface RealSystem {
  breaker: CircuitBreaker;
  clock: FakeClock;
  /** Every admission, in the model's order: an admission object or a ticket. */
  tokens: ({ api: 'object'; admission: CircuitAdmission } | { api: 'ticket'; ticket: number })[];
  /** What the breaker's transition listener saw. */
  transitions: string[];
}

type BreakerCommand = fc.Command<BreakerModel, RealSystem>;

/** How often the runs reached each situation; the test asserts all of them were reached. */
export const coverage = {
  commands: 0,
  trips: 0,
  reopens: 0,
  closes: 0,
  openRejections: 0,
  probesFullRejections: 0,
  staleOutcomes: 0,
  doubleCompletions: 0,
  boundaryTrips: 0,
  boundaryMisses: 0,
  evictionsByTime: 0,
  evictionsByCount: 0,
  clockBackwards: 0,
};

/** The invariants of BREAKER.md "Testing it", checked after every command. */
function checkInvariants(model: BreakerModel, real: RealSystem): void {
  coverage.commands++;
  const snapshot = real.breaker.snapshot();
  const expected = model.snapshot();
  // Cheap comparisons first; vitest's matchers (slow per call) only run to report a difference.
  const keys = Object.keys(expected) as (keyof typeof expected)[];
  if (keys.some((key) => snapshot[key] !== expected[key])) expect(snapshot).toEqual(expected);
  if (real.breaker.state !== model.state) expect(real.breaker.state).toBe(model.state);
  if (snapshot.probesInFlight + snapshot.probeSuccesses > model.options.halfOpenProbeCount) {
    expect(snapshot.probesInFlight + snapshot.probeSuccesses).toBeLessThanOrEqual(
      model.options.halfOpenProbeCount,
    );
  }
  const sameTransitions =
    real.transitions.length === model.transitions.length &&
    real.transitions.every((edge, i) => edge === model.transitions[i]);
  if (!sameTransitions) expect(real.transitions).toEqual(model.transitions);
}

function acquire(model: BreakerModel, real: RealSystem, api: 'object' | 'ticket'): boolean {
  const wasClosed = model.state === 'closed';
  const expected = model.acquire();
  if (api === 'object') {
    const result = real.breaker.tryAcquire();
    if (result.admitted) real.tokens.push({ api, admission: result });
    else expect({ admitted: false, retryAfter: result.retryAfter }).toEqual(expected);
    expect(result.admitted).toBe(expected.admitted);
  } else {
    const ticket = real.breaker.tryAdmit();
    if (ticket >= 0) real.tokens.push({ api, ticket });
    else if (!expected.admitted)
      expect(ticket === -2 ? null : real.breaker.lastRetryAfter).toBe(expected.retryAfter);
    expect(ticket >= 0).toBe(expected.admitted);
  }
  if (wasClosed) expect(expected.admitted).toBe(true); // closed never rejects
  if (!expected.admitted)
    coverage[expected.retryAfter === null ? 'probesFullRejections' : 'openRejections']++;
  return expected.admitted;
}

const OUTCOME_CODE = {
  success: CircuitOutcome.Success,
  failure: CircuitOutcome.Failure,
  none: CircuitOutcome.None,
};

function complete(model: BreakerModel, real: RealSystem, index: number, outcome: ModelOutcome): void {
  const token = real.tokens[index]!;
  const before = real.breaker.snapshot();
  const transitionsBefore = real.transitions.length;
  const stale = model.admissions[index]!.generation !== model.generation;
  const transitionsOfModel = model.transitions.length;
  const countedBefore = model.counted().length;
  const live = model.complete(index, outcome);
  if (!live) coverage.doubleCompletions++;
  else if (stale) coverage.staleOutcomes++;
  for (const edge of model.transitions.slice(transitionsOfModel)) {
    if (edge === 'closed->open') coverage.trips++;
    if (edge === 'half_open->open') coverage.reopens++;
    if (edge === 'half_open->closed') coverage.closes++;
  }
  if (
    live &&
    !stale &&
    outcome !== 'none' &&
    model.state === 'closed' &&
    countedBefore === model.options.maximumSampleCount
  ) {
    coverage.evictionsByCount++;
  }
  if (token.api === 'ticket') {
    expect(real.breaker.complete(token.ticket, OUTCOME_CODE[outcome])).toBe(live);
  } else if (outcome === 'success') token.admission.success();
  else if (outcome === 'failure') token.admission.failure();
  else token.admission.release();
  if (!live || stale) {
    // A double completion, or an outcome from an earlier state, changes nothing but its own ticket.
    const inFlightDrop = live ? 1 : 0;
    expect(real.breaker.snapshot()).toEqual({
      ...before,
      admissionsInFlight: before.admissionsInFlight - inFlightDrop,
    });
    expect(real.transitions).toHaveLength(transitionsBefore);
  }
}

export class AcquireCommand implements BreakerCommand {
  constructor(readonly api: 'object' | 'ticket') {}
  check = () => true;
  run(model: BreakerModel, real: RealSystem): void {
    model.tick();
    acquire(model, real, this.api);
    checkInvariants(model, real);
  }
  toString = () => `acquire(${this.api})`;
}

/** `check()` predicts the next admission and changes nothing (the invariants compare the rest). */
export class CheckCommand implements BreakerCommand {
  check = () => true;
  run(model: BreakerModel, real: RealSystem): void {
    model.tick();
    const code = real.breaker.check();
    let expected = 0;
    if (model.state === 'open' && model.now < model.openUntil) expected = -1;
    if (
      model.state === 'half_open' &&
      model.probesInFlight + model.probeSuccesses >= model.options.halfOpenProbeCount
    ) {
      expected = -2;
    }
    if (code !== expected) expect(code).toBe(expected);
    if (code === -1)
      expect(real.breaker.lastRetryAfter).toBe(Math.max(1, Math.ceil(model.openUntil - model.now)));
    checkInvariants(model, real);
  }
  toString = () => 'check()';
}

export class CompleteCommand implements BreakerCommand {
  constructor(
    readonly pick: number,
    readonly outcome: ModelOutcome,
  ) {}
  check = (model: Readonly<BreakerModel>) => model.admissions.length > 0;
  run(model: BreakerModel, real: RealSystem): void {
    model.tick();
    // Prefer an admission still in flight; every fourth pick may hit a completed one again.
    const inFlight = model.admissions.flatMap((a, i) => (a.done ? [] : [i]));
    const pool = inFlight.length > 0 && this.pick % 4 !== 0 ? inFlight : model.admissions.map((_, i) => i);
    complete(model, real, pool[this.pick % pool.length]!, this.outcome);
    checkInvariants(model, real);
  }
  toString = () => `complete(#${this.pick}, ${this.outcome})`;
}

export class AdvanceCommand implements BreakerCommand {
  constructor(
    readonly base: number | 'openDuration' | 'samplingWindow',
    readonly delta: number,
  ) {}
  check = () => true;
  run(model: BreakerModel, real: RealSystem): void {
    const step = (typeof this.base === 'number' ? this.base : model.options[this.base]) + this.delta;
    const countedBefore = model.counted().length;
    model.rawTime += step;
    real.clock.advance(step);
    model.tick();
    if (step < 0) coverage.clockBackwards++;
    if (model.counted().length < countedBefore) coverage.evictionsByTime++;
    checkInvariants(model, real);
  }
  toString = () => `advance(${this.base}${this.delta === 0 ? '' : this.delta > 0 ? '+1' : '-1'})`;
}

/** `count` admissions completed at once with the same outcome (fewer if rejected). */
export class BurstCommand implements BreakerCommand {
  constructor(
    readonly count: number,
    readonly failed: boolean,
  ) {}
  check = () => true;
  run(model: BreakerModel, real: RealSystem): void {
    model.tick();
    for (let i = 0; i < this.count; i++) {
      if (acquire(model, real, i % 2 === 0 ? 'ticket' : 'object')) {
        complete(model, real, model.admissions.length - 1, this.failed ? 'failure' : 'success');
      }
    }
    checkInvariants(model, real);
  }
  toString = () => `burst(${this.count} × ${this.failed ? 'failure' : 'success'})`;
}

/** While closed: the failures that reach the trip boundary exactly (offset 0) or stop one short (-1). */
export class BoundaryBurstCommand implements BreakerCommand {
  constructor(readonly offset: number) {}
  check = (model: Readonly<BreakerModel>) => model.state === 'closed';
  run(model: BreakerModel, real: RealSystem): void {
    model.tick();
    const needed = model.failuresToTrip();
    const count = Number.isFinite(needed) ? needed + this.offset : model.options.maximumSampleCount;
    new BurstCommand(count, true).run(model, real);
    if (!Number.isFinite(needed)) return;
    expect(real.breaker.state).toBe(this.offset === 0 ? 'open' : 'closed');
    coverage[this.offset === 0 ? 'boundaryTrips' : 'boundaryMisses']++;
  }
  toString = () => `boundaryBurst(${this.offset})`;
}
