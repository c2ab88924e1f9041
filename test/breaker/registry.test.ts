// The registry (BREAKER.md 15-16): one shared circuit per endpoint, in use while leased or while an
// admission is in flight, at most 16 idle circuits kept, least recently used evicted first, closed
// before open, silently; a returning endpoint starts fresh. Plus the property over 40 endpoints.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBreakerRegistry, CircuitOutcome, MAX_IDLE_HISTORIES } from '../../src/breaker/index.js';
import { FakeClock, propertySettings, testEnvironment } from './support.js';

function registry(maxIdleHistories?: number) {
  const clock = new FakeClock();
  const env = { ...testEnvironment(clock), ...(maxIdleHistories === undefined ? {} : { maxIdleHistories }) };
  const instance = new CircuitBreakerRegistry({ minimumFailureCount: 1, openDuration: 1_000 }, env);
  const events: string[] = [];
  instance.onTransition((endpoint, from, to) => events.push(`${endpoint} ${from}->${to}`));
  return { registry: instance, clock, events };
}

/** Opens `endpoint`'s circuit through a short-lived lease. */
function trip(target: CircuitBreakerRegistry, endpoint: string): void {
  const lease = target.acquire(endpoint);
  lease.breaker.complete(lease.breaker.tryAdmit(), CircuitOutcome.Failure);
  lease.release();
}

function keys(target: CircuitBreakerRegistry, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `h${i}:6379`).filter(
    (key) => target.peek(key) !== undefined,
  );
}

describe('CircuitBreakerRegistry', () => {
  it('shares one circuit among every connection to an endpoint', () => {
    const { registry: r, events } = registry();
    const a = r.acquire('cache:6379');
    const b = r.acquire('cache:6379');
    const other = r.acquire('db:6380');
    expect(a.breaker).toBe(b.breaker);
    expect(other.breaker).not.toBe(a.breaker);
    a.breaker.complete(a.breaker.tryAdmit(), CircuitOutcome.Failure);
    expect(b.breaker.state).toBe('open');
    expect(other.breaker.state).toBe('closed');
    expect(events).toEqual(['cache:6379 closed->open']);
  });

  it(`keeps at most ${MAX_IDLE_HISTORIES} idle circuits, evicting the least recently used`, () => {
    const { registry: r } = registry();
    for (let i = 0; i < 20; i++) r.acquire(`h${i}:6379`).release();
    expect(r.size).toBe(16);
    expect(r.idleCount).toBe(16);
    expect(keys(r, 20)).toEqual(Array.from({ length: 16 }, (_, i) => `h${i + 4}:6379`));
  });

  it('evicts closed circuits before open ones, silently', () => {
    const { registry: r, events } = registry(2);
    trip(r, 'h0:6379');
    r.acquire('h1:6379').release();
    r.acquire('h2:6379').release(); // h0 is the oldest but open: h1 goes
    expect(keys(r, 3)).toEqual(['h0:6379', 'h2:6379']);
    trip(r, 'h3:6379'); // the only closed one left goes
    expect(keys(r, 4)).toEqual(['h0:6379', 'h3:6379']);
    trip(r, 'h4:6379'); // all open: the least recently used goes
    expect(keys(r, 5)).toEqual(['h3:6379', 'h4:6379']);
    expect(events).toEqual(['h0:6379 closed->open', 'h3:6379 closed->open', 'h4:6379 closed->open']);
  });

  it('starts an evicted endpoint fresh and closed, and stops reporting the old circuit', () => {
    const { registry: r, clock, events } = registry(0);
    const lease = r.acquire('h0:6379');
    const old = lease.breaker;
    old.complete(old.tryAdmit(), CircuitOutcome.Failure);
    lease.release();
    expect(r.peek('h0:6379')).toBeUndefined();
    const fresh = r.acquire('h0:6379').breaker;
    expect(fresh).not.toBe(old);
    expect(fresh.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0 });
    clock.advance(1_000);
    old.tryAcquire(); // the detached circuit's open -> half_open is not the endpoint's any more
    expect(events).toEqual(['h0:6379 closed->open']);
  });

  it('never evicts a leased circuit or one with an admission in flight', () => {
    const { registry: r } = registry(0);
    const lease = r.acquire('leased:1');
    const busy = r.get('busy:1');
    const ticket = busy.tryAdmit();
    r.get('other:1');
    r.acquire('another:1').release();
    expect(r.peek('leased:1')).toBe(lease.breaker);
    expect(r.peek('busy:1')).toBe(busy);
    busy.complete(ticket, CircuitOutcome.Success); // now idle beyond the limit of 0
    expect(r.peek('busy:1')).toBeUndefined();
    lease.release();
    lease.release(); // a second release is a no-op
    expect(r.size).toBe(0);
  });

  it('keeps the circuit that get() just created even when every other idle one is open', () => {
    const { registry: r } = registry(1);
    trip(r, 'open:1');
    const fresh = r.get('fresh:1');
    expect(r.peek('fresh:1')).toBe(fresh);
    expect(r.peek('open:1')).toBeUndefined();
  });
});

/** The naive model: a map of endpoints and an array of unleased keys, least recently used first. */
interface ModelEntry {
  uses: number;
  inFlight: number;
  open: boolean;
}

class RegistryModel {
  readonly entries = new Map<string, ModelEntry>();
  unleased: string[] = [];

  constructor(readonly maxIdle: number) {}

  idle(): string[] {
    return this.unleased.filter((key) => this.entries.get(key)!.inFlight === 0);
  }

  touch(key: string): void {
    this.unleased = [...this.unleased.filter((k) => k !== key), key];
  }

  evict(keep: string | null): void {
    while (this.idle().length > this.maxIdle) {
      const candidates = this.idle().filter((key) => key !== keep);
      const victim = candidates.find((key) => !this.entries.get(key)!.open) ?? candidates[0];
      if (victim === undefined) return;
      this.entries.delete(victim);
      this.unleased = this.unleased.filter((k) => k !== victim);
    }
  }
}

describe('registry property over 40 endpoints', () => {
  it('keeps at most the idle limit, never drops a circuit in use, and evicts in model order', () => {
    const ENDPOINTS = 40;
    const step = fc.oneof(
      fc.record({ op: fc.constant('acquire' as const), key: fc.nat(ENDPOINTS - 1) }),
      fc.record({ op: fc.constant('release' as const), index: fc.nat() }),
      fc.record({ op: fc.constant('admit' as const), key: fc.nat(ENDPOINTS - 1) }),
      fc.record({ op: fc.constant('complete' as const), index: fc.nat() }),
      fc.record({ op: fc.constant('trip' as const), key: fc.nat(ENDPOINTS - 1) }),
    );
    const scenario = fc.record({
      maxIdle: fc.constantFrom(0, 1, 3, 16),
      steps: fc.array(step, { maxLength: 150 }),
    });
    fc.assert(
      fc.property(scenario, ({ maxIdle, steps }) => {
        const r = new CircuitBreakerRegistry(
          { minimumFailureCount: 1, openDuration: 1e9 },
          { ...testEnvironment(new FakeClock()), maxIdleHistories: maxIdle },
        );
        const model = new RegistryModel(maxIdle);
        const leases: { key: string; release(): void }[] = [];
        const admissions: { key: string; ticket: number }[] = [];
        const identity = new Map<string, unknown>();
        for (const s of steps) {
          if (s.op === 'acquire') {
            const key = `h${s.key}:6379`;
            const fresh = !model.entries.has(key);
            const lease = r.acquire(key);
            if (fresh) {
              expect(lease.breaker).not.toBe(identity.get(key));
              expect(lease.breaker.snapshot()).toMatchObject({ state: 'closed', total: 0 });
              model.entries.set(key, { uses: 0, inFlight: 0, open: false });
            }
            const entry = model.entries.get(key)!;
            if (entry.uses++ === 0) model.unleased = model.unleased.filter((k) => k !== key);
            identity.set(key, lease.breaker);
            leases.push({ key, release: lease.release });
          } else if (s.op === 'release' && leases.length > 0) {
            const [lease] = leases.splice(s.index % leases.length, 1);
            lease!.release();
            const entry = model.entries.get(lease!.key)!;
            if (--entry.uses === 0) {
              model.touch(lease!.key);
              if (entry.inFlight === 0) model.evict(null);
            }
          } else if (s.op === 'admit' || s.op === 'trip') {
            const key = `h${s.key}:6379`;
            const breaker = r.get(key);
            if (model.entries.has(key)) {
              if (model.entries.get(key)!.uses === 0) model.touch(key);
            } else {
              model.entries.set(key, { uses: 0, inFlight: 0, open: false });
              model.unleased.push(key);
              model.evict(key);
            }
            identity.set(key, breaker);
            const entry = model.entries.get(key);
            const ticket = breaker.tryAdmit();
            expect(ticket >= 0).toBe(entry !== undefined && !entry.open);
            if (ticket >= 0 && s.op === 'admit') {
              entry!.inFlight++;
              admissions.push({ key, ticket });
            } else if (ticket >= 0) {
              breaker.complete(ticket, CircuitOutcome.Failure);
              entry!.open = true;
              if (entry!.inFlight === 0 && entry!.uses === 0) {
                model.touch(key);
                model.evict(null);
              }
            }
          } else if (s.op === 'complete' && admissions.length > 0) {
            const [admission] = admissions.splice(s.index % admissions.length, 1);
            const breaker = r.peek(admission!.key)!;
            expect(breaker).toBe(identity.get(admission!.key));
            expect(breaker.complete(admission!.ticket, CircuitOutcome.Success)).toBe(true);
            const entry = model.entries.get(admission!.key)!;
            if (--entry.inFlight === 0 && entry.uses === 0) {
              model.touch(admission!.key);
              model.evict(null);
            }
          }
          // After every step: the same endpoints are held, the idle count is bounded and exact,
          // and every circuit in use is still the one its users hold.
          for (let i = 0; i < ENDPOINTS; i++) {
            const key = `h${i}:6379`;
            const entry = model.entries.get(key);
            const held = r.peek(key);
            expect(held !== undefined).toBe(entry !== undefined);
            if (entry !== undefined && (entry.uses > 0 || entry.inFlight > 0))
              expect(held).toBe(identity.get(key));
            if (entry !== undefined) expect(held!.state).toBe(entry.open ? 'open' : 'closed');
          }
          expect(r.idleCount).toBe(model.idle().length);
          expect(r.idleCount).toBeLessThanOrEqual(maxIdle);
        }
      }),
      propertySettings(400),
    );
  });
});
