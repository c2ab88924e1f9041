// The fast-check commands of a model-based breaker test (BREAKER.md "Testing it"), built with the
// caller's own fast-check module so that respire keeps no dependency: acquire (object or ticket
// API), check, complete (any admission, again and again), advance the clock (biased to 0, 1 and the
// option boundaries ±1, sometimes backwards), bursts of outcomes, and bursts that land exactly on
// the trip boundary or one short. Every invariant is checked after every command.
import { type CircuitAcquireResult, type CircuitAdmission, CircuitOutcome } from '../admission.js';
import type { CircuitSnapshot, TransitionListener } from '../circuit-breaker.js';
import type { CircuitState } from '../circuit-state.js';
import { type RespireCircuitBreakerOptions, validateCircuitBreakerOptions } from '../options.js';
import type { BreakerModel, ModelOutcome } from './model.js';

/** The admission API a model run drives: `CircuitBreaker`'s, which a shared circuit has too. */
export interface BreakerUnderTest {
  readonly state: CircuitState;
  readonly lastRetryAfter: number;
  tryAcquire(): CircuitAcquireResult;
  tryAdmit(): number;
  complete(ticket: number, outcome: CircuitOutcome): boolean;
  check(): number;
  snapshot(): CircuitSnapshot;
  onTransition(listener: TransitionListener): () => void;
}

/** The real side of `fc.modelRun`: the breaker and the fake clock it reads. */
export interface BreakerSystem {
  breaker: BreakerUnderTest;
  clock: { advance(ms: number): void };
}

/** The parts of fast-check the commands are built from (the caller's `import fc from 'fast-check'`). */
export interface FastCheckArbitrary<T> {
  map<U>(mapper: (value: T) => U): FastCheckArbitrary<U>;
  chain<U>(chainer: (value: T) => FastCheckArbitrary<U>): FastCheckArbitrary<U>;
}
export interface FastCheckModule {
  constant<T>(value: T): FastCheckArbitrary<T>;
  constantFrom<T>(...values: T[]): FastCheckArbitrary<T>;
  integer(constraints: { min: number; max: number }): FastCheckArbitrary<number>;
  nat(): FastCheckArbitrary<number>;
  boolean(): FastCheckArbitrary<boolean>;
  tuple<A, B>(a: FastCheckArbitrary<A>, b: FastCheckArbitrary<B>): FastCheckArbitrary<[A, B]>;
  // biome-ignore lint/suspicious/noExplicitAny: fast-check's own overloads; only the shape matters here.
  oneof(...arbitraries: any[]): FastCheckArbitrary<any>;
  // biome-ignore lint/suspicious/noExplicitAny: fast-check's own overloads; only the shape matters here.
  commands(arbitraries: any[], constraints?: { maxCommands?: number; size?: 'max' }): unknown;
}

/** A fast-check model command over the reference model and a real breaker. */
export interface BreakerCommand {
  check(model: Readonly<BreakerModel>): boolean;
  run(model: BreakerModel, real: BreakerSystem): void;
  toString(): string;
}

/** How often model runs (in this process) reached each situation the invariants are about. */
export const breakerCoverage = {
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

type Token = { api: 'object'; admission: CircuitAdmission } | { api: 'ticket'; ticket: number };

/** What a run keeps beside the breaker: its admissions in the model's order, and what its listener saw. */
interface RunRecord {
  tokens: Token[];
  transitions: string[];
}

const EDGES = new Set(['closed->open', 'open->half_open', 'half_open->open', 'half_open->closed']);
const records = new WeakMap<BreakerSystem, RunRecord>();

function fail(what: string, actual: unknown, expected: unknown): never {
  throw new Error(`${what}: breaker ${JSON.stringify(actual)}, model ${JSON.stringify(expected)}`);
}

function recordOf(real: BreakerSystem): RunRecord {
  let record = records.get(real);
  if (record !== undefined) return record;
  const created: RunRecord = { tokens: [], transitions: [] };
  real.breaker.onTransition((from, to) => {
    const edge = `${from}->${to}`;
    if (!EDGES.has(edge)) fail('transition', edge, [...EDGES]);
    if (real.breaker.state !== to) fail('state seen by a listener', real.breaker.state, to);
    created.transitions.push(edge);
  });
  records.set(real, created);
  record = created;
  return record;
}

/** The invariants of BREAKER.md "Testing it", checked after every command. */
function checkInvariants(model: BreakerModel, real: BreakerSystem): void {
  breakerCoverage.commands++;
  const snapshot = real.breaker.snapshot();
  const expected = model.snapshot();
  const keys = Object.keys(expected) as (keyof CircuitSnapshot)[];
  if (keys.some((key) => snapshot[key] !== expected[key])) fail('snapshot', snapshot, expected);
  if (real.breaker.state !== model.state) fail('state', real.breaker.state, model.state);
  if (snapshot.probesInFlight + snapshot.probeSuccesses > model.options.halfOpenProbeCount)
    fail('probes taken', snapshot.probesInFlight + snapshot.probeSuccesses, model.options.halfOpenProbeCount);
  const { transitions } = recordOf(real);
  if (
    transitions.length !== model.transitions.length ||
    transitions.some((edge, i) => edge !== model.transitions[i])
  ) {
    fail('transitions', transitions, model.transitions);
  }
}

function acquire(model: BreakerModel, real: BreakerSystem, api: 'object' | 'ticket'): boolean {
  const { tokens } = recordOf(real);
  const wasClosed = model.state === 'closed';
  const expected = model.acquire();
  let actual: { admitted: boolean; retryAfter?: number | null };
  if (api === 'object') {
    const result = real.breaker.tryAcquire();
    if (result.admitted) tokens.push({ api, admission: result });
    actual = result.admitted ? { admitted: true } : { admitted: false, retryAfter: result.retryAfter };
  } else {
    const ticket = real.breaker.tryAdmit();
    if (ticket >= 0) tokens.push({ api, ticket });
    actual =
      ticket >= 0
        ? { admitted: true }
        : { admitted: false, retryAfter: ticket === -2 ? null : real.breaker.lastRetryAfter };
  }
  if (
    actual.admitted !== expected.admitted ||
    (!expected.admitted && actual.retryAfter !== expected.retryAfter)
  )
    fail(`${api} admission`, actual, expected);
  if (wasClosed && !expected.admitted) fail('closed never rejects', actual, expected);
  if (!expected.admitted)
    breakerCoverage[expected.retryAfter === null ? 'probesFullRejections' : 'openRejections']++;
  return expected.admitted;
}

const OUTCOME_CODE = {
  success: CircuitOutcome.Success,
  failure: CircuitOutcome.Failure,
  none: CircuitOutcome.None,
};

function complete(model: BreakerModel, real: BreakerSystem, index: number, outcome: ModelOutcome): void {
  const record = recordOf(real);
  const token = record.tokens[index]!;
  const before = real.breaker.snapshot();
  const transitionsBefore = record.transitions.length;
  const stale = model.admissions[index]!.generation !== model.generation;
  const transitionsOfModel = model.transitions.length;
  const countedBefore = model.counted().length;
  const live = model.complete(index, outcome);
  if (!live) breakerCoverage.doubleCompletions++;
  else if (stale) breakerCoverage.staleOutcomes++;
  for (const edge of model.transitions.slice(transitionsOfModel)) {
    if (edge === 'closed->open') breakerCoverage.trips++;
    if (edge === 'half_open->open') breakerCoverage.reopens++;
    if (edge === 'half_open->closed') breakerCoverage.closes++;
  }
  if (live && !stale && outcome !== 'none' && model.state === 'closed') {
    if (countedBefore === model.options.maximumSampleCount) breakerCoverage.evictionsByCount++;
  }
  if (token.api === 'ticket') {
    const completed = real.breaker.complete(token.ticket, OUTCOME_CODE[outcome]);
    if (completed !== live) fail('complete() result', completed, live);
  } else if (outcome === 'success') token.admission.success();
  else if (outcome === 'failure') token.admission.failure();
  else token.admission.release();
  if (!live || stale) {
    // A double completion, or an outcome from an earlier state, changes nothing but its own ticket.
    const after = real.breaker.snapshot();
    const expected = { ...before, admissionsInFlight: before.admissionsInFlight - (live ? 1 : 0) };
    const keys = Object.keys(expected) as (keyof CircuitSnapshot)[];
    if (keys.some((key) => after[key] !== expected[key])) fail('stale or double completion', after, expected);
    if (record.transitions.length !== transitionsBefore)
      fail('transitions after a stale or double completion', record.transitions.length, transitionsBefore);
  }
}

class AcquireCommand implements BreakerCommand {
  constructor(readonly api: 'object' | 'ticket') {}
  check = () => true;
  run(model: BreakerModel, real: BreakerSystem): void {
    model.tick();
    acquire(model, real, this.api);
    checkInvariants(model, real);
  }
  toString = () => `acquire(${this.api})`;
}

/** `check()` predicts the next admission and changes nothing (the invariants compare the rest). */
class CheckCommand implements BreakerCommand {
  check = () => true;
  run(model: BreakerModel, real: BreakerSystem): void {
    model.tick();
    const code = real.breaker.check();
    const expected = model.wouldAdmit();
    if (code !== expected) fail('check()', code, expected);
    const retryAfter = Math.max(1, Math.ceil(model.openUntil - model.now));
    if (code === -1 && real.breaker.lastRetryAfter !== retryAfter)
      fail('retryAfter after check()', real.breaker.lastRetryAfter, retryAfter);
    checkInvariants(model, real);
  }
  toString = () => 'check()';
}

class CompleteCommand implements BreakerCommand {
  constructor(
    readonly pick: number,
    readonly outcome: ModelOutcome,
  ) {}
  check = (model: Readonly<BreakerModel>) => model.admissions.length > 0;
  run(model: BreakerModel, real: BreakerSystem): void {
    model.tick();
    // Prefer an admission still in flight; every fourth pick may hit a completed one again.
    const inFlight = model.admissions.flatMap((a, i) => (a.done ? [] : [i]));
    const pool = inFlight.length > 0 && this.pick % 4 !== 0 ? inFlight : model.admissions.map((_, i) => i);
    complete(model, real, pool[this.pick % pool.length]!, this.outcome);
    checkInvariants(model, real);
  }
  toString = () => `complete(#${this.pick}, ${this.outcome})`;
}

class AdvanceCommand implements BreakerCommand {
  constructor(
    readonly base: number | 'openDuration' | 'samplingWindow',
    readonly delta: number,
  ) {}
  check = () => true;
  run(model: BreakerModel, real: BreakerSystem): void {
    const step = (typeof this.base === 'number' ? this.base : model.options[this.base]) + this.delta;
    const countedBefore = model.counted().length;
    model.rawTime += step;
    real.clock.advance(step);
    model.tick();
    if (step < 0) breakerCoverage.clockBackwards++;
    if (model.counted().length < countedBefore) breakerCoverage.evictionsByTime++;
    checkInvariants(model, real);
  }
  toString = () => `advance(${this.base}${this.delta === 0 ? '' : this.delta > 0 ? '+1' : '-1'})`;
}

/** `count` admissions completed at once with the same outcome (fewer if rejected). */
class BurstCommand implements BreakerCommand {
  constructor(
    readonly count: number,
    readonly failed: boolean,
  ) {}
  check = () => true;
  run(model: BreakerModel, real: BreakerSystem): void {
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
class BoundaryBurstCommand implements BreakerCommand {
  constructor(readonly offset: number) {}
  check = (model: Readonly<BreakerModel>) => model.state === 'closed';
  run(model: BreakerModel, real: BreakerSystem): void {
    model.tick();
    const needed = model.failuresToTrip();
    const count = Number.isFinite(needed) ? needed + this.offset : model.options.maximumSampleCount;
    new BurstCommand(count, true).run(model, real);
    if (!Number.isFinite(needed)) return;
    const expected = this.offset === 0 ? 'open' : 'closed';
    if (real.breaker.state !== expected) fail('state after a boundary burst', real.breaker.state, expected);
    breakerCoverage[this.offset === 0 ? 'boundaryTrips' : 'boundaryMisses']++;
  }
  toString = () => `boundaryBurst(${this.offset})`;
}

/**
 * fast-check commands for `fc.modelRun(() => ({ model: breakerModel(options), real: { breaker,
 * clock } }), commands)`: up to `maxCommands` (default 40) per run. `fc` is the caller's fast-check.
 * Clock steps and bursts are sized from `options`, so they reach its window, delay and boundary;
 * with `probeTimeout` (a shared registry's, given to the model too), clock steps reach it as well.
 */
export function breakerCommands<FastCheck extends FastCheckModule>(
  fc: FastCheck,
  options?: RespireCircuitBreakerOptions,
  constraints: { maxCommands?: number; probeTimeout?: number } = {},
): ReturnType<FastCheck['commands']> {
  const resolved = validateCircuitBreakerOptions(options);
  const longest = Math.ceil(Math.max(resolved.maxOpenDuration, resolved.samplingWindow));
  // Past the sample count (evictions by count) and past the failures a trip needs.
  const burst = Math.max(8, Math.min(resolved.maximumSampleCount, 64) + 2);
  return fc.commands(
    [
      fc.constantFrom('object' as const, 'ticket' as const).map((api) => new AcquireCommand(api)),
      fc
        .tuple(fc.nat(), fc.constantFrom('success' as const, 'failure' as const, 'none' as const))
        .map(([pick, outcome]) => new CompleteCommand(pick, outcome)),
      fc
        .oneof(...weighted(fc, longest, constraints.probeTimeout))
        .chain((base: number | 'openDuration' | 'samplingWindow') =>
          typeof base === 'number'
            ? fc.constant(new AdvanceCommand(base, 0))
            : fc.integer({ min: -1, max: 1 }).map((delta) => new AdvanceCommand(base, delta)),
        ),
      fc
        .tuple(fc.integer({ min: 1, max: burst }), fc.boolean())
        .map(([count, failed]) => new BurstCommand(count, failed)),
      fc.constantFrom(-1, 0).map((offset) => new BoundaryBurstCommand(offset)),
      fc.constant(new CheckCommand()),
    ],
    { maxCommands: constraints.maxCommands ?? 40, size: 'max' },
  ) as ReturnType<FastCheck['commands']>;
}

/**
 * The clock steps, weighted 3 : 4 : 1 : 1 by repetition rather than `{ weight, arbitrary }`, which
 * fast-check 2 does not take: the caller's fast-check may be of any major version from 2 on.
 */
function weighted(
  fc: FastCheckModule,
  longest: number,
  probeTimeout: number | undefined,
): FastCheckArbitrary<unknown>[] {
  const small = fc.constantFrom(0, 1);
  const named = fc.constantFrom('openDuration' as const, 'samplingWindow' as const);
  const steps = [
    ...Array<FastCheckArbitrary<unknown>>(3).fill(small),
    ...Array<FastCheckArbitrary<unknown>>(4).fill(named),
    fc.integer({ min: -5, max: 3 * longest }),
    fc.constantFrom(-1, -longest),
  ];
  if (probeTimeout !== undefined)
    steps.push(fc.constantFrom(probeTimeout - 1, probeTimeout, probeTimeout + 1));
  return steps;
}
