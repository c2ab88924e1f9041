// Issue 15 break attempt (wt-break15), fixed: a SharedCircuit handle whose lease was released (or
// whose view called detach()) still read and wrote its old slot. Once that slot was idle, evicted
// and given to another endpoint, the stale handle admitted on that endpoint's state and recorded
// into its history: endpoint a's failure tripped endpoint b's circuit, so two endpoints shared a
// slot after all (issue 15: "two endpoints never share a slot"). The client reached it too: a
// closed client's `client.circuit.state` / `snapshot()` read the gate's released handle, i.e.
// whatever endpoint held the slot by then. Now a retired handle (registry.ts `dropEntry`) answers
// from a single-thread circuit of its own (shared/retired-circuit.ts), as a circuit a
// CircuitBreakerRegistry let go of is its own object: it starts where the slot was (state, open
// deadline, trips; an empty history) and never touches the slot again.
import { expect, it } from 'vitest';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());

/** One slot, no idle history kept: a released endpoint's slot goes to the next endpoint at once. */
function oneSlot(now?: () => number): SharedCircuitRegistry {
  const options = { maxEndpoints: 1, maxIdleHistories: 0, minimumFailureCount: 1, openDuration: 1_000 };
  return new SharedCircuitRegistry(options, now === undefined ? {} : { now });
}

it("a released handle's outcomes never reach the endpoint its slot was given to", () => {
  const registry = oneSlot();
  const lease = registry.acquire('a:6379');
  const stale = lease.breaker;
  lease.release(); // idle, and evicted at once (no idle history kept)
  const b = SharedCircuitRegistry.attach(registry.buffer).circuit('b:6379');
  const ticket = stale.tryAdmit();
  expect(ticket).toBeGreaterThanOrEqual(0);
  expect(stale.admissionsInFlight).toBe(1);
  expect(stale.complete(ticket, CircuitOutcome.Failure)).toBe(true);
  expect(b.state).toBe('closed');
  expect(b.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0 });
  // The stale handle's failure tripped its own circuit, nobody else's.
  expect(stale.state).toBe('open');
  expect(stale.snapshot()).toMatchObject({ state: 'open', failures: 1, consecutiveTrips: 1 });
});

it("a detached view's handle reads its own circuit, not the slot's new endpoint", () => {
  const registry = oneSlot();
  const view = SharedCircuitRegistry.attach(registry.buffer);
  const stale = view.circuit('a:6379');
  view.detach();
  const b = registry.circuit('b:6379');
  b.complete(b.tryAdmit(), CircuitOutcome.Failure);
  expect(b.state).toBe('open');
  expect(stale.state).toBe('closed');
  expect(stale.check()).toBe(0);
  expect(stale.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0, openUntil: null });
  expect(stale.tryAcquire().admitted).toBe(true);
  expect(b.snapshot()).toMatchObject({ state: 'open', failures: 1, total: 1 });
});

it('a retired handle starts where its slot was: open, with its deadline and trip count', () => {
  let now = 0;
  const registry = oneSlot(() => now);
  const lease = registry.acquire('a:6379');
  const stale = lease.breaker;
  const transitions: [string, string, number][] = [];
  stale.onTransition((from: string, to: string, generation: number) =>
    transitions.push([from, to, generation]),
  );
  stale.complete(stale.tryAdmit(), CircuitOutcome.Failure);
  const { openUntil } = stale.snapshot();
  expect(openUntil).toBe(1_000);
  lease.release();
  const b = registry.circuit('b:6379');
  expect(stale.snapshot()).toMatchObject({ state: 'open', openUntil, consecutiveTrips: 1, total: 0 });
  now = 400;
  expect(stale.tryAcquire()).toEqual({ admitted: false, retryAfter: 600 });
  now = 1_000;
  const probe = stale.tryAdmit(); // its own half-open round, its own listeners told
  expect(stale.isCurrent(probe)).toBe(true);
  expect(stale.complete(probe, CircuitOutcome.Success)).toBe(true);
  expect(stale.state).toBe('closed');
  expect(transitions.map(([from, to]) => [from, to])).toEqual([
    ['closed', 'open'],
    ['open', 'half_open'],
    ['half_open', 'closed'],
  ]);
  const generations = transitions.map(([, , generation]) => generation);
  expect(generations[1]).toBeGreaterThan(generations[0]!);
  expect(generations[2]).toBe(generations[1]! + 1);
  expect(b.snapshot()).toMatchObject({ state: 'closed', total: 0, consecutiveTrips: 0 });
});

it('a shared ticket completed after its handle retired changes nothing (the registry never lets that happen; a guard)', () => {
  const registry = oneSlot();
  const a = registry.circuit('a:6379');
  const ticket = a.tryAdmit();
  a.retire();
  expect(a.admissionsInFlight).toBe(1);
  expect(a.isCurrent(ticket)).toBe(false);
  expect(a.complete(ticket, CircuitOutcome.Failure)).toBe(true);
  expect(a.complete(ticket, CircuitOutcome.Failure)).toBe(false);
  expect(a.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0, admissionsInFlight: 0 });
  // A new ticket of the stand-in is not confused with the old one.
  const next = a.tryAdmit();
  expect(a.isCurrent(next)).toBe(true);
  expect(a.complete(next, CircuitOutcome.Success)).toBe(true);
  expect(a.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 1 });
});

it("a closed client's circuit is its own, not the endpoint its slot went to", async () => {
  const registry = oneSlot();
  const client = await clients.open({ circuitBreaker: { shared: registry } });
  await client.set('shared-released:key', 'value');
  const circuit = client.circuit!;
  expect(circuit.state).toBe('closed');
  await client.close();
  // The client's endpoint is idle and evicted: another endpoint takes the one slot and trips.
  const b = SharedCircuitRegistry.attach(registry.buffer).circuit('b:6379');
  b.complete(b.tryAdmit(), CircuitOutcome.Failure);
  expect(b.state).toBe('open');
  expect(circuit.state).toBe('closed');
  expect(circuit.snapshot()).toMatchObject({ state: 'closed', failures: 0, openUntil: null });
});
