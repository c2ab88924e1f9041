// Allocation-free tickets (BREAKER.md 11-12): each redeemable once, tagged with its generation, safe
// against garbage, growing past the initial table, and staying small integers.
import { describe, expect, it } from 'vitest';
import { AdmitRejection } from '../../src/breaker/admission.js';
import { AdmissionSlots, MAX_ADMISSIONS_IN_FLIGHT } from '../../src/breaker/admission-slots.js';
import { CircuitBreaker, RespireError } from '../../src/breaker/index.js';

describe('AdmissionSlots', () => {
  it('answers Saturated past MAX_ADMISSIONS_IN_FLIGHT instead of throwing, and issues again once one is redeemed', () => {
    const slots = new AdmissionSlots();
    let first = -1;
    for (let i = 0; i < MAX_ADMISSIONS_IN_FLIGHT; i++) {
      const ticket = slots.issue(1);
      if (i === 0) first = ticket;
    }
    expect(slots.issue(1)).toBe(AdmitRejection.Saturated);
    expect(slots.inFlight).toBe(MAX_ADMISSIONS_IN_FLIGHT);
    expect(slots.generationOf(first)).toBe(1);
    expect(slots.redeem(first)).toBe(1);
    expect(slots.generationOf(first)).toBe(-1);
    expect(slots.issue(2)).toBeGreaterThanOrEqual(0);
  });

  it('a saturated breaker: tryAdmit answers Saturated, tryAcquire throws a RespireError, state unchanged', () => {
    const breaker = new CircuitBreaker({}, { now: () => 0 });
    for (let i = 0; i < MAX_ADMISSIONS_IN_FLIGHT; i++) breaker.tryAdmit();
    expect(breaker.tryAdmit()).toBe(AdmitRejection.Saturated);
    expect(() => breaker.tryAcquire()).toThrow(RespireError);
    expect(breaker.state).toBe('closed');
  });

  it('isCurrent: a ticket of the current state, not of an earlier one or a completed one', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ minimumFailureCount: 1, openDuration: 10 }, { now: () => now });
    const closedTicket = breaker.tryAdmit();
    expect(breaker.isCurrent(closedTicket)).toBe(true);
    breaker.complete(breaker.tryAdmit(), 1); // a failure: open
    expect(breaker.isCurrent(closedTicket)).toBe(false);
    now = 10;
    const probe = breaker.tryAdmit(); // half-open
    expect(breaker.isCurrent(probe)).toBe(true);
    breaker.complete(probe, 2);
    expect(breaker.isCurrent(probe)).toBe(false);
  });

  it('redeems a ticket once, returning the generation that issued it', () => {
    const slots = new AdmissionSlots();
    const a = slots.issue(3);
    const b = slots.issue(7);
    expect(slots.inFlight).toBe(2);
    expect(slots.redeem(b)).toBe(7);
    expect(slots.redeem(b)).toBe(-1);
    expect(slots.redeem(a)).toBe(3);
    expect(slots.inFlight).toBe(0);
  });

  it('rejects tickets never issued and values that are not tickets', () => {
    const slots = new AdmissionSlots();
    const issued = slots.issue(0);
    for (const bogus of [
      issued + 1,
      issued + MAX_ADMISSIONS_IN_FLIGHT,
      -1,
      0.5,
      Number.NaN,
      2 ** 30,
      2 ** 31,
      2 ** 53,
    ]) {
      expect(slots.redeem(bogus)).toBe(-1);
    }
    expect(slots.inFlight).toBe(1);
  });

  it('keeps a redeemed ticket dead while its slot is reused', () => {
    const slots = new AdmissionSlots();
    const old = slots.issue(1);
    slots.redeem(old);
    // Free slots are reused oldest first: 16 × 2000 admissions reuse the old slot 2000 times.
    let wrong = 0;
    for (let i = 0; i < 16 * 2_000; i++) {
      const ticket = slots.issue(1);
      if (slots.redeem(old) !== -1) wrong++;
      if (slots.redeem(ticket) !== 1) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it('reuses a lone free slot at once, so its serial comes round after 2048 reuses', () => {
    const slots = new AdmissionSlots();
    for (let i = 0; i < 15; i++) slots.issue(0); // every other slot of the initial 16 is held
    const old = slots.issue(1);
    slots.redeem(old);
    for (let reuse = 1; reuse < 2_048; reuse++) {
      const ticket = slots.issue(1);
      expect(ticket & (MAX_ADMISSIONS_IN_FLIGHT - 1)).toBe(old & (MAX_ADMISSIONS_IN_FLIGHT - 1));
      expect(ticket).not.toBe(old);
      slots.redeem(ticket);
    }
    expect(slots.issue(1)).toBe(old); // why a caller must forget a completed ticket
  });

  it('grows past the initial table and keeps every ticket valid', () => {
    const slots = new AdmissionSlots();
    const tickets = Array.from({ length: 1_000 }, (_, i) => slots.issue(i));
    expect(new Set(tickets).size).toBe(1_000);
    tickets.forEach((ticket, i) => {
      expect(slots.redeem(ticket)).toBe(i);
    });
    expect(slots.inFlight).toBe(0);
  });

  it('issues small non-negative integers (unboxed in V8)', () => {
    const slots = new AdmissionSlots();
    let largest = 0;
    let wrong = 0;
    for (let i = 0; i < 100_000; i++) {
      const ticket = slots.issue(0);
      if (!Number.isInteger(ticket) || ticket < 0) wrong++;
      largest = Math.max(largest, ticket);
      slots.redeem(ticket);
    }
    expect(wrong).toBe(0);
    expect(largest).toBeGreaterThan(2 ** 29); // the serials did wrap through their whole range
    expect(largest).toBeLessThan(2 ** 30);
  });
});
