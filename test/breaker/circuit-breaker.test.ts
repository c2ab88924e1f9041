// The state controller: opening, rejections, lazy half-open, probes, generations, exactly-once
// completion and the clock clamp (seed 000; BREAKER.md 1-14), with the named regressions.
import { describe, expect, it } from 'vitest';
import {
  AdmitRejection,
  type CircuitAdmission,
  CircuitBreaker,
  type CircuitBreakerEnvironment,
  CircuitOutcome,
  type RespireCircuitBreakerOptions,
} from '../../src/breaker/index.js';
import { FakeClock, testEnvironment } from './support.js';

function setup(options: RespireCircuitBreakerOptions = {}, environment?: Partial<CircuitBreakerEnvironment>) {
  const clock = new FakeClock(1_000);
  const env = { ...testEnvironment(clock), ...environment };
  const breaker = new CircuitBreaker(options, env);
  const transitions: string[] = [];
  breaker.onTransition((from, to) => transitions.push(`${from}->${to}`));
  return { clock, breaker, transitions, env };
}

function admit(breaker: CircuitBreaker): CircuitAdmission {
  const result = breaker.tryAcquire();
  if (!result.admitted) throw new Error(`expected an admission, got retryAfter ${result.retryAfter}`);
  return result;
}

function fail(breaker: CircuitBreaker, times: number): void {
  for (let i = 0; i < times; i++) admit(breaker).failure();
}

function succeed(breaker: CircuitBreaker, times: number): void {
  for (let i = 0; i < times; i++) admit(breaker).success();
}

describe('opening', () => {
  // Its options with nothing given are API.md's defaults: options.test.ts checks them.
  it('starts closed', () => {
    const { breaker } = setup();
    expect(breaker.state).toBe('closed');
  });

  it('opens at the minimum failure count once the failure fraction reaches the threshold', () => {
    const { breaker, transitions } = setup();
    succeed(breaker, 4);
    fail(breaker, 4);
    expect(breaker.state).toBe('closed'); // 4 failures < minimumFailureCount
    fail(breaker, 1);
    expect(breaker.state).toBe('open'); // 5 of 9 >= 0.5
    expect(transitions).toEqual(['closed->open']);
  });

  it('does not open while the failure fraction is below the threshold', () => {
    const { breaker } = setup({ failureRateThreshold: 0.5, minimumFailureCount: 2 });
    succeed(breaker, 10);
    fail(breaker, 9);
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 9, total: 19 });
    fail(breaker, 1);
    expect(breaker.state).toBe('open'); // 10 of 20
  });

  it('compares by division: 7 failures of 100 at 0.07 opens', () => {
    const { breaker } = setup({ failureRateThreshold: 0.07, minimumFailureCount: 1 });
    succeed(breaker, 93);
    fail(breaker, 6);
    expect(breaker.state).toBe('closed');
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it('never opens on a success, even with the failures at the threshold', () => {
    const { breaker } = setup({ minimumFailureCount: 1, failureRateThreshold: 1, maximumSampleCount: 2 });
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
    const other = setup({ minimumFailureCount: 2, failureRateThreshold: 0.5 }).breaker;
    fail(other, 1);
    succeed(other, 1);
    expect(other.state).toBe('closed');
  });

  it('drops the oldest outcome when maximumSampleCount is reached', () => {
    const { breaker } = setup({ maximumSampleCount: 4, minimumFailureCount: 3, failureRateThreshold: 1 });
    fail(breaker, 2);
    succeed(breaker, 2);
    expect(breaker.snapshot()).toMatchObject({ failures: 2, total: 4 });
    fail(breaker, 2); // the two oldest failures leave
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 2, total: 4 });
  });
});

describe('rejections', () => {
  it('rejects while open with retryAfter = ceil(openUntil - now), at least 1', () => {
    const { breaker, clock } = setup({ minimumFailureCount: 1, openDuration: 1_000 });
    fail(breaker, 1);
    expect(breaker.snapshot().openUntil).toBe(2_000);
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: 1_000 });
    clock.advance(0.25);
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: 1_000 });
    clock.advance(998.75);
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: 1 });
    clock.advance(0.999);
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: 1 });
  });

  it('keeps rejections out of the history', () => {
    const { breaker } = setup({ minimumFailureCount: 1 });
    fail(breaker, 1);
    for (let i = 0; i < 10; i++) breaker.tryAcquire();
    expect(breaker.snapshot()).toMatchObject({ failures: 1, total: 1, admissionsInFlight: 0 });
  });

  it('reports the same through the ticket API', () => {
    const { breaker } = setup({ minimumFailureCount: 1, openDuration: 300 });
    breaker.complete(breaker.tryAdmit(), CircuitOutcome.Failure);
    expect(breaker.tryAdmit()).toBe(AdmitRejection.Open);
    expect(breaker.lastRetryAfter).toBe(300);
  });
});

describe('half-open', () => {
  it('becomes half-open lazily: the first attempt after the deadline is the probe', () => {
    const { breaker, clock, transitions } = setup({ minimumFailureCount: 1, openDuration: 100 });
    fail(breaker, 1);
    clock.advance(100);
    expect(breaker.state).toBe('open');
    const probe = admit(breaker);
    expect(breaker.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1, probeSuccesses: 0 });
    expect(transitions).toEqual(['closed->open', 'open->half_open']);
    probe.success();
    expect(breaker.state).toBe('closed');
  });

  it('admits halfOpenProbeCount probes at once and needs that many successes to close', () => {
    const { breaker, clock } = setup({ minimumFailureCount: 1, openDuration: 100, halfOpenProbeCount: 2 });
    fail(breaker, 1);
    clock.advance(100);
    const first = admit(breaker);
    const second = admit(breaker);
    const full = breaker.tryAcquire();
    expect(full).toEqual({ admitted: false, retryAfter: null });
    expect(Object.isFrozen(full)).toBe(true);
    expect(breaker.tryAdmit()).toBe(AdmitRejection.ProbesFull);
    first.success();
    // One success and one probe in flight use the whole budget.
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: null });
    second.success();
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0, consecutiveTrips: 0 });
  });

  it('reopens for another openDuration on one probe failure', () => {
    const { breaker, clock, transitions } = setup({
      minimumFailureCount: 1,
      openDuration: 100,
      halfOpenProbeCount: 3,
    });
    fail(breaker, 1);
    clock.advance(150);
    const ok = admit(breaker);
    const bad = admit(breaker);
    ok.success();
    bad.failure();
    expect(breaker.snapshot()).toMatchObject({ state: 'open', openUntil: 1_250, consecutiveTrips: 2 });
    expect(transitions).toEqual(['closed->open', 'open->half_open', 'half_open->open']);
  });
});

describe('named regressions', () => {
  it('a cancelled probe neither closes nor stalls the circuit', () => {
    const { breaker, clock, transitions } = setup({ minimumFailureCount: 1, openDuration: 100 });
    fail(breaker, 1);
    clock.advance(100);
    admit(breaker).release();
    expect(breaker.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 0, probeSuccesses: 0 });
    const next = admit(breaker); // the freed slot admits the next probe at once
    expect(breaker.snapshot().probesInFlight).toBe(1);
    next.success();
    expect(transitions).toEqual(['closed->open', 'open->half_open', 'half_open->closed']);
  });

  it('two failures at the trip produce one transition and one deadline', () => {
    const { breaker, clock, transitions } = setup({ minimumFailureCount: 2, failureRateThreshold: 1 });
    const a = admit(breaker);
    const b = admit(breaker);
    const c = admit(breaker);
    a.failure();
    b.failure();
    expect(breaker.snapshot()).toMatchObject({ state: 'open', openUntil: 6_000 });
    clock.advance(10);
    c.failure(); // admitted before the trip, completes while open
    expect(breaker.snapshot()).toMatchObject({ state: 'open', openUntil: 6_000, consecutiveTrips: 1 });
    expect(transitions).toEqual(['closed->open']);
  });

  it('a late success of a command admitted before the trip does not close', () => {
    const { breaker, clock } = setup({ minimumFailureCount: 1, openDuration: 100 });
    const early = admit(breaker);
    fail(breaker, 1);
    clock.advance(100);
    const probe = admit(breaker);
    early.success();
    expect(breaker.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1, probeSuccesses: 0 });
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: null });
    probe.success();
    expect(breaker.state).toBe('closed');
  });

  it('after an hour idle one failure does not trip', () => {
    const { breaker, clock } = setup({ minimumFailureCount: 5, failureRateThreshold: 0.5 });
    fail(breaker, 4);
    clock.advance(60 * 60 * 1_000);
    fail(breaker, 1);
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 1, total: 1 });
  });

  it('the history is empty after closing', () => {
    const { breaker, clock } = setup({
      minimumFailureCount: 3,
      failureRateThreshold: 0.5,
      openDuration: 100,
    });
    succeed(breaker, 2);
    fail(breaker, 3);
    expect(breaker.snapshot()).toMatchObject({ state: 'open', failures: 3, total: 5 });
    clock.advance(100);
    admit(breaker).success();
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0 });
    fail(breaker, 2); // would re-trip at once if the old failures were kept
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 2, total: 2 });
  });
});

describe('expiry', () => {
  it('expires an outcome exactly samplingWindow after it was recorded', () => {
    const { breaker, clock } = setup({ samplingWindow: 1_000 });
    fail(breaker, 1);
    clock.advance(500);
    succeed(breaker, 1);
    clock.advance(499);
    expect(breaker.snapshot()).toMatchObject({ failures: 1, total: 2 });
    clock.advance(1);
    expect(breaker.snapshot()).toMatchObject({ failures: 0, total: 1 });
    clock.advance(500);
    expect(breaker.snapshot()).toMatchObject({ failures: 0, total: 0 });
  });

  it('timestamps the outcome when it is known, not when it was admitted', () => {
    const { breaker, clock } = setup({ samplingWindow: 1_000 });
    const slow = admit(breaker);
    clock.advance(900);
    slow.failure();
    clock.advance(900);
    expect(breaker.snapshot().failures).toBe(1);
  });
});

describe('completion', () => {
  it('completes an admission once; later calls change nothing', () => {
    const { breaker } = setup({ minimumFailureCount: 1 });
    const admission = admit(breaker);
    admission.success();
    const before = breaker.snapshot();
    admission.failure();
    admission.success();
    admission.release();
    expect(breaker.snapshot()).toEqual(before);
    expect(before).toMatchObject({ state: 'closed', failures: 0, total: 1, admissionsInFlight: 0 });
  });

  it('returns false for a ticket completed before, never issued or malformed', () => {
    const { breaker } = setup();
    const ticket = breaker.tryAdmit();
    expect(breaker.complete(ticket, CircuitOutcome.Success)).toBe(true);
    expect(breaker.complete(ticket, CircuitOutcome.Failure)).toBe(false);
    for (const bogus of [ticket + 1, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 40]) {
      expect(breaker.complete(bogus, CircuitOutcome.Failure)).toBe(false);
    }
    expect(breaker.snapshot()).toMatchObject({ failures: 0, total: 1, admissionsInFlight: 0 });
  });

  it('records no outcome on release and treats an unknown outcome code as none', () => {
    const { breaker } = setup();
    admit(breaker).release();
    breaker.complete(breaker.tryAdmit(), 7 as CircuitOutcome);
    expect(breaker.snapshot()).toMatchObject({ failures: 0, total: 0, admissionsInFlight: 0 });
  });

  it('ignores an outcome admitted in an earlier closed period', () => {
    const { breaker, clock } = setup({ minimumFailureCount: 1, openDuration: 100 });
    const early = breaker.tryAdmit();
    fail(breaker, 1);
    clock.advance(100);
    admit(breaker).success();
    expect(breaker.complete(early, CircuitOutcome.Failure)).toBe(true);
    expect(breaker.snapshot()).toMatchObject({
      state: 'closed',
      failures: 0,
      total: 0,
      admissionsInFlight: 0,
    });
  });

  it('counts admissions in flight across many concurrent tickets', () => {
    const { breaker } = setup();
    const tickets = Array.from({ length: 5_000 }, () => breaker.tryAdmit());
    expect(new Set(tickets).size).toBe(5_000);
    expect(breaker.admissionsInFlight).toBe(5_000);
    for (const ticket of tickets) expect(breaker.complete(ticket, CircuitOutcome.Success)).toBe(true);
    expect(breaker.snapshot()).toMatchObject({ admissionsInFlight: 0, total: 1_024 });
  });
});

describe('clock', () => {
  it('clamps a clock that goes backwards to its latest reading', () => {
    const { breaker, clock } = setup({ minimumFailureCount: 1, openDuration: 1_000, samplingWindow: 10_000 });
    clock.time = 5_000;
    fail(breaker, 1); // openUntil 6000
    clock.time = 0;
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: 1_000 });
    clock.time = Number.NaN;
    expect(breaker.tryAcquire()).toEqual({ admitted: false, retryAfter: 1_000 });
  });

  it('reads the default clock when none is injected', () => {
    const breaker = new CircuitBreaker({ minimumFailureCount: 1, openDuration: 60_000 });
    breaker.complete(breaker.tryAdmit(), CircuitOutcome.Failure);
    const { openUntil } = breaker.snapshot();
    expect(openUntil! - performance.now()).toBeGreaterThan(59_000);
    expect(openUntil! - performance.now()).toBeLessThanOrEqual(60_000);
  });
});

describe('snapshot', () => {
  it('is a frozen copy', () => {
    const { breaker } = setup();
    const snapshot = breaker.snapshot();
    expect(Object.isFrozen(snapshot)).toBe(true);
    succeed(breaker, 1);
    expect(snapshot.total).toBe(0);
    expect(breaker.snapshot()).toEqual({
      state: 'closed',
      failures: 0,
      total: 1,
      probesInFlight: 0,
      probeSuccesses: 0,
      openUntil: null,
      consecutiveTrips: 0,
      admissionsInFlight: 0,
    });
  });
});

describe('check', () => {
  it('predicts tryAdmit without taking a slot or becoming half-open', () => {
    const { breaker, clock, transitions } = setup({ minimumFailureCount: 1, openDuration: 100 });
    expect(breaker.check()).toBe(0);
    fail(breaker, 1);
    clock.advance(40);
    expect(breaker.check()).toBe(AdmitRejection.Open);
    expect(breaker.lastRetryAfter).toBe(60);
    clock.advance(60);
    expect(breaker.check()).toBe(0);
    expect(breaker.state).toBe('open');
    const probe = admit(breaker);
    expect(breaker.check()).toBe(AdmitRejection.ProbesFull);
    expect(breaker.snapshot()).toMatchObject({
      state: 'half_open',
      probesInFlight: 1,
      admissionsInFlight: 1,
    });
    probe.release();
    expect(breaker.check()).toBe(0);
    expect(transitions).toEqual(['closed->open', 'open->half_open']);
  });
});
