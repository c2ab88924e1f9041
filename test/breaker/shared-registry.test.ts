// SharedCircuitRegistry's table and options (API.md "Circuits shared across worker threads"):
// attach() sees the same circuits, a full table is a clear error and never a shared slot, idle
// endpoints follow BREAKER.md 16 across views (at most maxIdleHistories kept, least recently used
// and closed ones first), a returning evicted endpoint starts closed, and only the thread that made
// a transition hears it. Views stand in for threads here; shared-concurrency.test.ts uses real ones.
import { describe, expect, it } from 'vitest';
import {
  CircuitBreakerRegistry,
  CircuitOutcome,
  RespireConfigurationError,
  SharedCircuitRegistry,
} from '../../src/breaker/index.js';
import { fakeClock } from '../../src/breaker/testing/index.js';
import { resolveOptions } from '../../src/client/options.js';
import type { RespireOptions } from '../../src/index.js';

const TRIP_ON_ONE = { minimumFailureCount: 1, openDuration: 1_000 };

function trip(registry: SharedCircuitRegistry, endpoint: string): void {
  const circuit = registry.circuit(endpoint);
  circuit.complete(circuit.tryAdmit(), CircuitOutcome.Failure);
}

function configurationError(run: () => unknown): RespireConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RespireConfigurationError);
    return error as RespireConfigurationError;
  }
  throw new Error('no error');
}

describe('SharedCircuitRegistry', () => {
  it('gives every attached view the same circuit, with the options from the buffer', () => {
    const clock = fakeClock();
    const made = new SharedCircuitRegistry({ ...TRIP_ON_ONE, maxEndpoints: 4 }, clock);
    const other = SharedCircuitRegistry.attach(made.buffer, clock);
    expect(other.options).toEqual(made.options);
    trip(made, 'a:6379');
    expect(other.circuit('a:6379').state).toBe('open');
    expect(other.circuit('a:6379').tryAcquire()).toEqual({ admitted: false, retryAfter: 1_000 });
    expect(other.circuit('b:6379').state).toBe('closed');
    expect(made.size).toBe(2);
  });

  it('tells only the thread that made a transition, once', () => {
    const clock = fakeClock();
    const made = new SharedCircuitRegistry(TRIP_ON_ONE, clock);
    const other = SharedCircuitRegistry.attach(made.buffer, clock);
    const heard: string[] = [];
    made.onTransition((endpoint, from, to) => heard.push(`made ${endpoint} ${from}->${to}`));
    other.onTransition((endpoint, from, to) => heard.push(`other ${endpoint} ${from}->${to}`));
    other
      .circuit('a:6379')
      .onTransition((_from, to, generation) => heard.push(`circuit ${to} ${generation}`));
    trip(made, 'a:6379');
    clock.advance(1_000);
    other.circuit('a:6379').complete(other.circuit('a:6379').tryAdmit(), CircuitOutcome.Success);
    expect(heard).toEqual([
      'made a:6379 closed->open',
      'other a:6379 open->half_open',
      'circuit half_open 3',
      'other a:6379 half_open->closed',
      'circuit closed 4',
    ]);
  });

  it('refuses an endpoint when every slot is held: two endpoints never share one', () => {
    const made = new SharedCircuitRegistry({ maxEndpoints: 2 });
    const a = made.acquire('a:6379');
    const b = SharedCircuitRegistry.attach(made.buffer).acquire('b:6379');
    const error = configurationError(() => made.acquire('c:6379'));
    expect(error.option).toBe('maxEndpoints');
    expect(error.message).toContain("'c:6379'");
    b.release();
    expect(made.acquire('c:6379').breaker.state).toBe('closed'); // b was idle: evicted for c
    a.release();
  });

  it('keeps at most maxIdleHistories idle endpoints, closed ones and the least recently used first', () => {
    const clock = fakeClock();
    const made = new SharedCircuitRegistry({ ...TRIP_ON_ONE, maxEndpoints: 8, maxIdleHistories: 2 }, clock);
    const other = SharedCircuitRegistry.attach(made.buffer, clock);
    const open = made.acquire('open:1');
    open.breaker.complete(open.breaker.tryAdmit(), CircuitOutcome.Failure);
    const leases = [open, other.acquire('closed:1'), made.acquire('closed:2'), other.acquire('closed:3')];
    for (const lease of leases) lease.release();
    // Four idle, two kept: the open one and the most recently released closed one.
    expect(made.idleCount).toBe(2);
    expect(other.acquire('open:1').breaker.state).toBe('open');
    expect(made.size).toBe(2);
    const returning = made.acquire('closed:1');
    expect(returning.breaker.snapshot()).toMatchObject({ state: 'closed', total: 0 });
  });

  it('keeps an endpoint whose admission is still in flight after its last lease', () => {
    const made = new SharedCircuitRegistry({ maxEndpoints: 1, maxIdleHistories: 0 });
    const lease = made.acquire('a:6379');
    const ticket = lease.breaker.tryAdmit();
    lease.release();
    expect(() => made.acquire('b:6379')).toThrow(RespireConfigurationError);
    lease.breaker.complete(ticket, CircuitOutcome.Success);
    expect(made.acquire('b:6379').breaker.state).toBe('closed');
  });

  it('validates its options as CircuitBreaker does, and its own', () => {
    expect(configurationError(() => new SharedCircuitRegistry({ openDuration: 0 })).option).toBe(
      'openDuration',
    );
    expect(configurationError(() => new SharedCircuitRegistry({ maxEndpoints: 0 })).option).toBe(
      'maxEndpoints',
    );
    expect(configurationError(() => new SharedCircuitRegistry({ halfOpenProbeCount: 256 })).option).toBe(
      'halfOpenProbeCount',
    );
    expect(new SharedCircuitRegistry({ halfOpenProbeCount: 255 }).options.halfOpenProbeCount).toBe(255);
    expect(configurationError(() => new SharedCircuitRegistry().acquire('x'.repeat(257))).option).toBe(
      'endpoint',
    );
  });

  it('attaches only to a registry buffer', () => {
    for (const buffer of [
      new SharedArrayBuffer(64),
      new ArrayBuffer(4096),
      undefined,
      new SharedArrayBuffer(1),
    ]) {
      const error = configurationError(() => SharedCircuitRegistry.attach(buffer as SharedArrayBuffer));
      expect(error.option).toBe('buffer');
    }
    const cut = new SharedCircuitRegistry({ maxEndpoints: 2 }).buffer;
    const shorter = new SharedArrayBuffer(cut.byteLength - 8);
    new Uint8Array(shorter).set(new Uint8Array(cut, 0, shorter.byteLength));
    expect(configurationError(() => SharedCircuitRegistry.attach(shorter)).option).toBe('buffer');
  });
});

describe('circuitBreaker: { shared } in RespireOptions', () => {
  const BASE = { endpoints: ['127.0.0.1:6379'] };
  const resolve = (circuitBreaker: unknown) => resolveOptions({ ...BASE, circuitBreaker } as RespireOptions);

  it('takes the registry and its options', () => {
    const registry = new SharedCircuitRegistry({ minimumFailureCount: 3 });
    const resolved = resolve({ shared: registry });
    expect(resolved.sharedCircuits).toBe(registry);
    expect(resolved.circuitBreaker).toBe(registry.options);
    expect(resolve({ minimumFailureCount: 3 }).sharedCircuits).toBeNull();
  });

  it('refuses anything but a SharedCircuitRegistry, and options beside it', () => {
    expect(configurationError(() => resolve({ shared: {} })).option).toBe('circuitBreaker.shared');
    expect(configurationError(() => resolve({ shared: new CircuitBreakerRegistry() })).option).toBe(
      'circuitBreaker.shared',
    );
    const registry = new SharedCircuitRegistry();
    expect(configurationError(() => resolve({ shared: registry, openDuration: 10 })).option).toBe(
      'circuitBreaker.openDuration',
    );
  });
});
