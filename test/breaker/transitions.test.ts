// Transition listeners: committed state first, order under re-entrancy, unsubscribe functions, and a
// listener that throws (STYLE.md "Async, time, randomness").
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker, type CircuitState } from '../../src/breaker/index.js';
import { FakeClock, testEnvironment } from './support.js';

function trippable(clock: FakeClock, env = testEnvironment(clock)) {
  return new CircuitBreaker({ minimumFailureCount: 1, openDuration: 100 }, env);
}

function trip(breaker: CircuitBreaker): void {
  const admission = breaker.tryAcquire();
  if (admission.admitted) admission.failure();
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('onTransition', () => {
  it('runs listeners after the new state is committed', () => {
    const breaker = trippable(new FakeClock());
    const seen: [CircuitState, CircuitState, CircuitState][] = [];
    breaker.onTransition((from, to) => seen.push([from, to, breaker.state]));
    trip(breaker);
    expect(seen).toEqual([['closed', 'open', 'open']]);
  });

  it('returns an unsubscribe function that can be called twice and removes only its subscription', () => {
    const clock = new FakeClock();
    const breaker = trippable(clock);
    const calls: string[] = [];
    const listener = (from: CircuitState, to: CircuitState) => calls.push(`${from}->${to}`);
    const first = breaker.onTransition(listener);
    breaker.onTransition(listener);
    trip(breaker);
    expect(calls).toEqual(['closed->open', 'closed->open']);
    first();
    first();
    clock.advance(100);
    breaker.tryAcquire();
    expect(calls).toEqual(['closed->open', 'closed->open', 'open->half_open']);
  });

  it('delivers a transition caused by a listener after the current one, to every listener in order', () => {
    const clock = new FakeClock();
    const breaker = trippable(clock);
    const reentrant: string[] = [];
    const later: string[] = [];
    breaker.onTransition((from, to) => {
      reentrant.push(`${from}->${to}`);
      if (to === 'open') {
        clock.advance(100);
        expect(breaker.tryAcquire().admitted).toBe(true); // causes open -> half_open
      }
    });
    breaker.onTransition((from, to) => later.push(`${from}->${to}`));
    trip(breaker);
    expect(reentrant).toEqual(['closed->open', 'open->half_open']);
    expect(later).toEqual(['closed->open', 'open->half_open']);
    expect(breaker.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1 });
  });

  it('takes the probe before listeners run, so a re-entrant listener cannot steal its slot', () => {
    const clock = new FakeClock();
    const breaker = trippable(clock);
    trip(breaker);
    clock.advance(100);
    const inside: boolean[] = [];
    breaker.onTransition(() => inside.push(breaker.tryAcquire().admitted));
    expect(breaker.tryAcquire().admitted).toBe(true);
    expect(inside).toEqual([false]);
  });
});

describe('a listener that throws', () => {
  it('cannot corrupt state or stop other listeners, and is reported', () => {
    const clock = new FakeClock();
    const env = testEnvironment(clock);
    const breaker = trippable(clock, env);
    const failure = new Error('listener bug');
    const seen: string[] = [];
    breaker.onTransition(() => {
      throw failure;
    });
    breaker.onTransition((from, to) => seen.push(`${from}->${to}`));
    expect(() => trip(breaker)).not.toThrow();
    expect(breaker.snapshot()).toMatchObject({ state: 'open', openUntil: 100, consecutiveTrips: 1 });
    expect(seen).toEqual(['closed->open']);
    expect(env.listenerErrors).toEqual([failure]);
    clock.advance(100);
    const probe = breaker.tryAcquire();
    expect(probe.admitted).toBe(true);
    if (probe.admitted) probe.success();
    expect(breaker.state).toBe('closed');
    expect(env.listenerErrors).toHaveLength(3);
  });

  it('is rethrown from a microtask by default, after the caller has returned', () => {
    const queued: (() => void)[] = [];
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) => {
      queued.push(callback);
    });
    const clock = new FakeClock();
    const breaker = new CircuitBreaker({ minimumFailureCount: 1 }, { now: () => clock.now() });
    const failure = new Error('listener bug');
    breaker.onTransition(() => {
      throw failure;
    });
    expect(() => trip(breaker)).not.toThrow();
    expect(breaker.state).toBe('open');
    expect(queued).toHaveLength(1);
    expect(() => queued[0]!()).toThrow(failure);
  });

  it('still reaches the other listeners when the reporter itself throws', () => {
    const queued: (() => void)[] = [];
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) => {
      queued.push(callback);
    });
    const reporterFailure = new Error('reporter bug');
    const breaker = new CircuitBreaker(
      { minimumFailureCount: 1 },
      {
        now: () => 0,
        reportListenerError: () => {
          throw reporterFailure;
        },
      },
    );
    const seen: string[] = [];
    breaker.onTransition(() => {
      throw new Error('listener bug');
    });
    breaker.onTransition((from, to) => seen.push(`${from}->${to}`));
    trip(breaker);
    expect(seen).toEqual(['closed->open']);
    expect(() => queued[0]!()).toThrow(reporterFailure);
  });
});
