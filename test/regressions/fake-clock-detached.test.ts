// fakeClock()'s now() and advance() read `this`, so a clock handed on as `{ now: clock.now }` or a
// destructured `now` (how an environment is often built) threw a TypeError on the breaker's first
// reading, and a breaker given `{ now: clock.now }` read NaN (`this.time` of the environment). They now close over the clock.
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, CircuitOutcome } from '../../src/breaker/index.js';
import { fakeClock } from '../../src/breaker/testing/index.js';

describe('fakeClock methods taken off the clock', () => {
  it('read and move the same clock', () => {
    const clock = fakeClock({ time: 10 });
    const { now, advance } = clock;
    advance(5);
    expect(now()).toBe(15);
    clock.time = 100;
    expect(now()).toBe(100);
  });

  it('drive a breaker given { now: clock.now }', () => {
    const clock = fakeClock();
    const breaker = new CircuitBreaker(
      { minimumFailureCount: 1, openDuration: 1_000, openDurationJitter: 0 },
      { now: clock.now, random: clock.random },
    );
    breaker.complete(breaker.tryAdmit(), CircuitOutcome.Failure);
    expect(breaker.state).toBe('open');
    clock.advance(999);
    expect(breaker.tryAdmit()).toBeLessThan(0);
    expect(breaker.lastRetryAfter).toBe(1);
    clock.advance(1);
    expect(breaker.tryAdmit()).toBeGreaterThanOrEqual(0);
    expect(breaker.state).toBe('half_open');
  });
});
